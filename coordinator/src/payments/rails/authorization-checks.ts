// Pure checks on an EIP-3009 authorization before anything touches the chain. Each refusal is a
// PaymentProblem whose `detail` is safe to show the payer; nothing here does I/O.
import { isAddress, isAddressEqual, parseSignature, recoverTypedDataAddress, type Hex } from 'viem';
import { PaymentProblem } from '../types.ts';
import { authorizationMessage, transferAuthorizationTypedData, type Eip3009Authorization, type TokenDomain } from './eip3009.ts';

// secp256k1n / 2. Tokens refuse a larger s (EIP-2 malleability), so refuse it before paying gas.
const HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export interface AuthorizationExpectation {
  /** exact amount the route charges, token base units */
  amount: bigint;
  /** challengeNonce(challengeId, realm) of the challenge being answered */
  nonce: Hex;
}

export interface TermsContext {
  recipient: Hex;
  /** unix seconds, from the injected clock */
  nowSeconds: bigint;
  /** the authorization must stay valid this long, so it cannot expire while the relay is mined */
  minValiditySeconds: bigint;
}

export type AuthorizationMessage = ReturnType<typeof authorizationMessage>;

/** Checks shape, recipient, nonce, amount and validity window; returns the numeric message. */
export function checkAuthorizationTerms(auth: Eip3009Authorization, expect: AuthorizationExpectation, ctx: TermsContext): AuthorizationMessage {
  const message = parseMessage(auth);
  if (!isAddressEqual(message.to, ctx.recipient)) {
    throw new PaymentProblem('verification-failed', 'The authorization pays a different recipient than the one in the challenge.');
  }
  if (message.nonce.toLowerCase() !== expect.nonce.toLowerCase()) {
    throw new PaymentProblem('verification-failed', 'The authorization nonce does not belong to this challenge; sign a new one for it.');
  }
  if (message.value !== expect.amount) {
    throw new PaymentProblem(
      'payment-insufficient',
      `The authorization is for ${formatUsdc(message.value)} USDC; this request costs exactly ${formatUsdc(expect.amount)} USDC.`,
    );
  }
  if (ctx.nowSeconds <= message.validAfter) {
    throw new PaymentProblem('payment-expired', 'The authorization is not valid yet (validAfter is in the future).');
  }
  if (message.validBefore <= ctx.nowSeconds) {
    throw new PaymentProblem('payment-expired', 'The authorization has expired (validBefore has passed); sign a new one.');
  }
  if (message.validBefore < ctx.nowSeconds + ctx.minValiditySeconds) {
    throw new PaymentProblem(
      'payment-expired',
      `The authorization expires in under ${ctx.minValiditySeconds} s, too soon to settle on chain; sign one valid for longer.`,
    );
  }
  return message;
}

/** Recovers the EIP-712 signer and requires it to be `from`. EOA signatures only (65 bytes). */
export async function verifyAuthorizationSignature(auth: Eip3009Authorization, domain: TokenDomain): Promise<void> {
  const isWellFormed = typeof auth.signature === 'string' && /^0x[0-9a-fA-F]{130}$/.test(auth.signature);
  if (!isWellFormed) {
    throw new PaymentProblem('malformed-credential', 'The signature must be a 65-byte hex string (r, s, v).');
  }
  let signer: Hex;
  try {
    if (BigInt(parseSignature(auth.signature).s) > HALF_CURVE_ORDER) throw new Error('high-s signature');
    signer = await recoverTypedDataAddress({ ...transferAuthorizationTypedData(domain, auth), signature: auth.signature });
  } catch (err) {
    throw new PaymentProblem('verification-failed', 'The signature is not a valid signature of this authorization.', { cause: err });
  }
  if (!isAddressEqual(signer, auth.from)) {
    throw new PaymentProblem('verification-failed', 'The authorization was not signed by its `from` address.');
  }
}

/** 6-decimal base units as a plain decimal, e.g. 200000n → "0.20", 1_500_000n → "1.50". */
export function formatUsdc(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${whole}.${frac}`;
}

function parseMessage(auth: Eip3009Authorization): AuthorizationMessage {
  // Lower-case addresses pass; mixed case must carry a valid EIP-55 checksum (a typo detector).
  const isShapeOk = isAddress(auth.from) && isAddress(auth.to) && /^0x[0-9a-fA-F]{64}$/.test(auth.nonce ?? '');
  if (!isShapeOk) {
    throw new PaymentProblem('malformed-credential', 'The authorization needs `from`/`to` addresses and a 32-byte hex `nonce`.');
  }
  try {
    return authorizationMessage(auth);
  } catch (err) {
    throw new PaymentProblem('malformed-credential', (err as Error).message, { cause: err });
  }
}
