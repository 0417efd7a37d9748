/**
 * The `evm` MPP method, `charge` intent, `authorization` credential type (EIP-3009
 * `transferWithAuthorization`), as mppx 0.11.0 speaks it (mppx/evm: Types.ts, Methods.ts,
 * client/Charge.ts, server/Charge.ts).
 *
 * Request (JCS-encoded in the challenge), exactly mppx `evm.charge` request output:
 *   { amount: "<base units>", currency: <EIP-55 token address>, recipient: <EIP-55 address>,
 *     description?, externalId?,
 *     methodDetails: { chainId: <number>, credentialTypes: ["authorization"], decimals: <number> } }
 * mppx's client refuses a challenge whose `credentialTypes` lacks "authorization", and refuses
 * `splits`. The token's EIP-712 domain (name/version) is NOT on the wire: mppx's client takes
 * it from its own config (`currencies: [evm.assets.base.USDC]` or `authorization: {name, version}`).
 *
 * Payload (credential `payload`), exactly what mppx's client sends:
 *   { type: "authorization", from, to, value, validAfter: "0", validBefore, nonce, signature }
 * all integers as decimal strings, `validBefore` = floor(challenge.expires), `signature` a 0x
 * hex EIP-712 signature (65 bytes for an EOA; not split into v/r/s), `source` =
 * `did:pkh:eip155:<chainId>:<from>`.
 *
 * Nonce binding: `nonce = keccak256(utf8(challenge.id + challenge.realm))` (mppx
 * `evm.challengeHash`). The nonce is not part of the request, so there is no circularity: the
 * server builds the request, HMACs it into the id, and the client derives the nonce from the
 * final id. The token contract refuses a second use of the nonce.
 */
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../rails/eip3009.ts';
import { evm as mppxEvm } from 'mppx';
import { getAddress, recoverTypedDataAddress } from 'viem';
import type { PaymentProblem } from '../types.ts';
import { paymentProblem } from './problem.ts';

export const EVM_METHOD = 'evm';

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

/** An EIP-3009 `transferWithAuthorization`, typed for relaying with viem. */
export interface Eip3009Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** bytes32. */
  nonce: Hex;
  /** EIP-712 signature over TransferWithAuthorization, 0x hex (r‖s‖v for an EOA). */
  signature: Hex;
}

/** EIP-712 domain name/version of the token (USDC on Base: "USD Coin"/"2"; Base Sepolia: "USDC"/"2"). */
export interface TokenDomain {
  name: string;
  version: string;
}

export interface EvmChargeRequest {
  amount: string;
  currency: Address;
  recipient: Address;
  description?: string;
  externalId?: string;
  methodDetails: {
    chainId: number;
    credentialTypes: ['authorization'];
    decimals: number;
  };
}

export interface BuildEvmRequestInput {
  /** Base units (USDC: 6 decimals). */
  amount: bigint;
  /** Token contract (EIP-3009). */
  token: string;
  recipient: string;
  chainId: number;
  /** @default 6 */
  decimals?: number;
  description?: string;
  externalId?: string;
}

/** The `request` of an `evm`/`charge` challenge, identical to mppx `evm.charge`'s output. */
export function buildEvmRequest(input: BuildEvmRequestInput): EvmChargeRequest {
  if (input.amount <= 0n) throw new Error('buildEvmRequest: amount must be positive');
  if (!Number.isSafeInteger(input.chainId) || input.chainId <= 0) throw new Error('buildEvmRequest: invalid chainId');
  if (!ADDRESS.test(input.token) || !ADDRESS.test(input.recipient)) throw new Error('buildEvmRequest: invalid address');
  return {
    amount: input.amount.toString(),
    currency: getAddress(input.token),
    recipient: getAddress(input.recipient),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.externalId !== undefined && { externalId: input.externalId }),
    methodDetails: { chainId: input.chainId, credentialTypes: ['authorization'], decimals: input.decimals ?? 6 },
  };
}

/**
 * Validates a decoded (HMAC-verified) `evm` request with mppx's `ChargeRequestSchema` and
 * checks it accepts `authorization` credentials without splits. Throws `invalid-challenge`.
 */
export function parseEvmRequest(request: Record<string, unknown>, challengeId?: string): EvmChargeRequest {
  const parsed = mppxEvm.ChargeRequestSchema.safeParse(request);
  if (!parsed.success) throw paymentProblem('invalid-challenge', 'challenge request is not an evm charge request', { challengeId });
  const r = parsed.data;
  if (!r.methodDetails.credentialTypes?.includes('authorization') || r.methodDetails.splits?.length) {
    throw paymentProblem('invalid-challenge', 'challenge does not accept evm authorization credentials', { challengeId });
  }
  return {
    amount: r.amount,
    currency: getAddress(r.currency),
    recipient: getAddress(r.recipient),
    ...(r.description !== undefined && { description: r.description }),
    ...(r.externalId !== undefined && { externalId: r.externalId }),
    methodDetails: { chainId: r.methodDetails.chainId, credentialTypes: ['authorization'], decimals: r.methodDetails.decimals ?? 6 },
  };
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2})+$/;
const UINT = /^\d{1,78}$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * Validates an `evm` credential payload. Accepts exactly mppx's `AuthorizationPayloadSchema`
 * (`type: "authorization"` required). Other credential types of the evm draft (`permit2`,
 * `transaction`, `hash`) are not offered by our challenges and are refused. Throws
 * `malformed-credential`.
 */
export function parseEvmPayload(payload: unknown): Eip3009Authorization {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformed('payload must be an object');
  const p = payload as Record<string, unknown>;
  if (p.type !== 'authorization') {
    throw malformed(
      typeof p.type === 'string'
        ? `unsupported evm credential type "${p.type.slice(0, 32)}"; this server accepts "authorization"`
        : 'payload.type must be "authorization"',
    );
  }
  return parseAuthorizationFields(p, p.signature);
}

/** @internal Shared with x402: validates the six authorization fields + signature. */
export function parseAuthorizationFields(a: Record<string, unknown>, signature: unknown): Eip3009Authorization {
  const from = addressField(a, 'from');
  const to = addressField(a, 'to');
  const value = uintField(a, 'value');
  const validAfter = uintField(a, 'validAfter');
  const validBefore = uintField(a, 'validBefore');
  const nonce = a.nonce;
  if (typeof nonce !== 'string' || !BYTES32.test(nonce)) throw malformed('nonce must be a 0x-prefixed bytes32');
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) throw malformed('signature must be 0x-prefixed hex');
  return { from, to, value, validAfter, validBefore, nonce: nonce.toLowerCase() as Hex, signature: signature as Hex };
}

function addressField(a: Record<string, unknown>, key: string): Address {
  const v = a[key];
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw malformed(`${key} must be a 0x-prefixed 20-byte address`);
  return getAddress(v.toLowerCase());
}

function uintField(a: Record<string, unknown>, key: string): bigint {
  const v = a[key];
  if (typeof v !== 'string' || !UINT.test(v)) throw malformed(`${key} must be a decimal integer string`);
  const n = BigInt(v);
  if (n > MAX_UINT256) throw malformed(`${key} exceeds uint256`);
  return n;
}

/** `keccak256(utf8(id + realm))`: the EIP-3009 nonce mppx's client signs for a challenge. */
export function evmChallengeNonce(challenge: { id: string; realm: string }): Hex {
  return mppxEvm.challengeHash(challenge) as Hex;
}

/** `did:pkh:eip155:<chainId>:<EIP-55 address>`: the credential `source` mppx's client sends. */
export function evmSource(chainId: number, address: string): string {
  return mppxEvm.toSource({ chainId, address: getAddress(address) });
}

export interface VerifyAuthorizationInput {
  authorization: Eip3009Authorization;
  chainId: number;
  token: string;
  domain: TokenDomain;
  /** Who must receive the transfer. */
  recipient: string;
  /** Exact amount owed, base units. */
  amount: bigint;
  now: Date;
  /** When set, the nonce must equal it (MPP challenge binding). x402 nonces are client-chosen. */
  expectedNonce?: Hex;
  challengeId?: string;
}

/**
 * Off-chain checks of an EIP-3009 authorization before relaying it (the same checks mppx's
 * server makes): recipient, exact value, nonce binding, validity window, and that the EIP-712
 * signature recovers to `from`. Smart-contract-wallet signatures (ERC-1271) do not recover
 * and are refused, as mppx does. Throws `payment-insufficient` (value below the price),
 * `payment-expired` (validBefore passed) or `verification-failed`.
 * On-chain state (balance, `authorizationState`) is the relayer's to check.
 */
export async function verifyEip3009Authorization(input: VerifyAuthorizationInput): Promise<{ payer: Address }> {
  const { authorization: a, challengeId } = input;
  const fail = (detail: string) => paymentProblem('verification-failed', detail, { challengeId });
  if (getAddress(a.to) !== getAddress(input.recipient)) throw fail('authorization recipient does not match');
  if (a.value < input.amount) {
    throw paymentProblem('payment-insufficient', `authorization value ${a.value} is below the price ${input.amount}`, { challengeId });
  }
  if (a.value !== input.amount) throw fail('authorization value does not match the price');
  if (input.expectedNonce !== undefined && a.nonce.toLowerCase() !== input.expectedNonce.toLowerCase()) {
    throw fail('authorization nonce does not match the challenge');
  }
  const nowS = BigInt(Math.floor(input.now.getTime() / 1000));
  if (a.validAfter > nowS) throw fail('authorization is not valid yet');
  if (a.validBefore <= nowS) throw paymentProblem('payment-expired', 'authorization has expired', { challengeId });
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: input.domain.name, version: input.domain.version, chainId: input.chainId, verifyingContract: getAddress(input.token) },
      types: EIP3009_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
      signature: a.signature,
    });
  } catch (cause) {
    throw paymentProblem('verification-failed', 'authorization signature is invalid', { challengeId, cause });
  }
  if (getAddress(signer) !== getAddress(a.from)) throw fail('authorization signature does not match from');
  return { payer: getAddress(a.from) };
}

export interface CheckEvmCredentialInput {
  /** The HMAC-verified echoed challenge. */
  challenge: { id: string; realm: string };
  request: EvmChargeRequest;
  authorization: Eip3009Authorization;
  /** Credential `source`, when sent. */
  source?: string | undefined;
  domain: TokenDomain;
  now: Date;
}

/** {@link verifyEip3009Authorization} for an MPP `evm` credential, plus the `source` check. */
export async function checkEvmCredential(input: CheckEvmCredentialInput): Promise<{ payer: Address; source: string }> {
  const { request } = input;
  const { payer } = await verifyEip3009Authorization({
    authorization: input.authorization,
    chainId: request.methodDetails.chainId,
    token: request.currency,
    domain: input.domain,
    recipient: request.recipient,
    amount: BigInt(request.amount),
    now: input.now,
    expectedNonce: evmChallengeNonce(input.challenge),
    challengeId: input.challenge.id,
  });
  const source = evmSource(request.methodDetails.chainId, payer);
  if (input.source !== undefined && input.source !== source) {
    throw paymentProblem('verification-failed', 'credential source does not match the authorization', { challengeId: input.challenge.id });
  }
  return { payer, source };
}

/** EIP-712 types of EIP-3009 `transferWithAuthorization` (one definition, shared with the chain rail). */
export const EIP3009_TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES;

/** The method's two wire functions under the names the brief uses. */
export const evmWire = { method: EVM_METHOD, buildRequest: buildEvmRequest, parsePayload: parseEvmPayload } as const;

function malformed(detail: string): PaymentProblem {
  return paymentProblem('malformed-credential', `Credential is malformed: ${detail}.`);
}
