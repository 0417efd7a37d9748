import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PaymentProblem, type ProblemType } from '../types.ts';
import { checkAuthorizationTerms, formatUsdc, verifyAuthorizationSignature } from './authorization-checks.ts';
import { challengeNonce, transferAuthorizationTypedData, type Eip3009Authorization, type TokenDomain } from './eip3009.ts';

// Anvil dev keys 1 and 2: public test keys, used here only to produce real signatures.
const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const recipient = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'; // anvil dev account 3
const domain: TokenDomain = { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' };
const nonce = challengeNonce('ch_1', 'cutroom.test');
const now = 1_800_000_000n;
const ctx = { recipient, nowSeconds: now, minValiditySeconds: 6n } as const;
const expectation = { amount: 200_000n, nonce };

const unsigned = {
  from: payer.address,
  to: recipient,
  value: '200000',
  validAfter: String(now - 60n),
  validBefore: String(now + 300n),
  nonce,
} as const;

async function sign(fields: Partial<typeof unsigned> = {}, signer = payer): Promise<Eip3009Authorization> {
  const message = { ...unsigned, ...fields };
  const signature = await signer.signTypedData(transferAuthorizationTypedData(domain, message));
  return { ...message, signature };
}

function problemOf(fn: () => unknown): { type: ProblemType; detail: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof PaymentProblem) return { type: err.type, detail: err.message };
    throw err;
  }
  throw new Error('expected a PaymentProblem');
}

async function asyncProblemOf(p: Promise<unknown>): Promise<ProblemType> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof PaymentProblem)) throw new Error(`expected a PaymentProblem, got ${String(err)}`);
  return err.type;
}

describe('checkAuthorizationTerms', () => {
  it('accepts exact terms and returns the numeric message', async () => {
    const msg = checkAuthorizationTerms(await sign(), expectation, ctx);
    expect(msg.value).toBe(200_000n);
    expect(msg.validBefore).toBe(now + 300n);
  });

  it('accepts a lower-case recipient address', async () => {
    expect(() => checkAuthorizationTerms({ ...unsigned, to: recipient.toLowerCase() as `0x${string}`, signature: '0x' }, expectation, ctx)).not.toThrow();
  });

  it('refuses a wrong amount as payment-insufficient, naming both amounts in USDC', () => {
    const p = problemOf(() => checkAuthorizationTerms({ ...unsigned, value: '100000', signature: '0x' }, expectation, ctx));
    expect(p.type).toBe('payment-insufficient');
    expect(p.detail).toContain('0.10 USDC');
    expect(p.detail).toContain('0.20 USDC');
    expect(problemOf(() => checkAuthorizationTerms({ ...unsigned, value: '300000', signature: '0x' }, expectation, ctx)).type).toBe('payment-insufficient');
  });

  it('refuses another recipient or another challenge nonce as verification-failed', () => {
    const elsewhere = { ...unsigned, to: stranger.address, signature: '0x' } as const;
    expect(problemOf(() => checkAuthorizationTerms(elsewhere, expectation, ctx)).type).toBe('verification-failed');
    const otherNonce = { ...unsigned, nonce: challengeNonce('ch_2', 'cutroom.test'), signature: '0x' } as const;
    expect(problemOf(() => checkAuthorizationTerms(otherNonce, expectation, ctx)).type).toBe('verification-failed');
  });

  it.each([
    ['expired', { validBefore: String(now - 1n) }],
    ['expiring exactly now', { validBefore: String(now) }],
    ['expiring inside the settlement margin', { validBefore: String(now + 5n) }],
    ['not yet valid', { validAfter: String(now + 10n) }],
    ['valid only from exactly now', { validAfter: String(now) }],
  ])('refuses an authorization %s as payment-expired', (_name, fields) => {
    const p = problemOf(() => checkAuthorizationTerms({ ...unsigned, ...fields, signature: '0x' }, expectation, ctx));
    expect(p.type).toBe('payment-expired');
  });

  it('accepts an authorization valid for exactly the margin', () => {
    expect(() => checkAuthorizationTerms({ ...unsigned, validBefore: String(now + 6n), signature: '0x' }, expectation, ctx)).not.toThrow();
  });

  it.each([
    ['a non-integer value', { value: '0.2' }],
    ['a bad address', { from: '0x1234' }],
    ['a short nonce', { nonce: '0x1234' }],
  ])('refuses %s as malformed-credential', (_name, fields) => {
    const auth = { ...unsigned, ...fields, signature: '0x' } as Eip3009Authorization;
    expect(problemOf(() => checkAuthorizationTerms(auth, expectation, ctx)).type).toBe('malformed-credential');
  });
});

describe('verifyAuthorizationSignature', () => {
  it('accepts the payer’s own signature', async () => {
    await expect(verifyAuthorizationSignature(await sign(), domain)).resolves.toBeUndefined();
  });

  it('refuses a signature by another key', async () => {
    const forged = await sign({}, stranger); // `from` still says payer
    expect(await asyncProblemOf(verifyAuthorizationSignature(forged, domain))).toBe('verification-failed');
  });

  it('refuses a signature whose message was altered after signing', async () => {
    const signed = await sign();
    expect(await asyncProblemOf(verifyAuthorizationSignature({ ...signed, value: '999999' }, domain))).toBe('verification-failed');
  });

  it('refuses a signature made for another token or chain', async () => {
    const signed = await sign();
    expect(await asyncProblemOf(verifyAuthorizationSignature(signed, { ...domain, chainId: 1 }))).toBe('verification-failed');
    expect(await asyncProblemOf(verifyAuthorizationSignature(signed, { ...domain, version: '1' }))).toBe('verification-failed');
  });

  it('refuses the high-s twin of a valid signature (the token would revert)', async () => {
    const signed = await sign();
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signed.signature.slice(66, 130)}`);
    const v = parseInt(signed.signature.slice(130), 16);
    const twin = `${signed.signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as const;
    expect(await asyncProblemOf(verifyAuthorizationSignature({ ...signed, signature: twin as `0x${string}` }, domain))).toBe('verification-failed');
  });

  it('refuses a signature that is not 65 bytes as malformed-credential', async () => {
    const signed = await sign();
    expect(await asyncProblemOf(verifyAuthorizationSignature({ ...signed, signature: '0x1234' }, domain))).toBe('malformed-credential');
  });
});

describe('formatUsdc', () => {
  it.each([
    [0n, '0.00'],
    [10_000n, '0.01'],
    [200_000n, '0.20'],
    [1_500_000n, '1.50'],
    [1_234_567n, '1.234567'],
    [-50n, '-0.00005'],
  ])('%s base units → %s', (units, text) => expect(formatUsdc(units)).toBe(text));
});
