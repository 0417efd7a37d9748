// What identifies one payment authorization, whatever protocol carried it, and what it pays for.
//
// An EIP-3009 authorization is `{from, to, value, validAfter, validBefore, nonce}` signed by
// `from`; the token accepts each (from, nonce) once. Nothing in it names the protocol: the
// authorization a stock MPP client signs for job A (nonce = keccak256(challengeId + realm)) is a
// valid x402 payload for job B at the same price and payee. So its consumption key is the
// authorization's own identity, `eip155:<chainId>:<from>:<nonce>`, the same for MPP `evm` and
// x402: the second presentation finds the first's row and is refused.
//
// A card credential (MPP `stripe`) is keyed by its challenge id: each one is charged as its own
// PaymentIntent (idempotency key `mpp_<challengeId>_<spt>`), so it can never pay twice with one charge.
import type { Charge } from './types.ts';

/** The consumption key of an EIP-3009 authorization on `chainId` (lower-case hex, so one authorization has one key). */
export function chainConsumptionKey(chainId: number, from: string, nonce: string): string {
  return `eip155:${chainId}:${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

/** The consumption key of an MPP card credential. */
export function cardConsumptionKey(challengeId: string): string {
  return challengeId;
}

/**
 * What a charge buys, as stored on the consumption: a retry of the same authorization for the
 * same purpose resumes its settlement; the same authorization for another purpose is refused.
 * `job:<id>` for a job's payment; `request:<digest>` for paid creation (bound to the request
 * body, request-binding.ts); `call:<description>` for a job-less call (the smoke test).
 */
export function purposeOf(charge: Pick<Charge, 'jobId' | 'requestBinding' | 'description'>): string {
  if (charge.jobId) return `job:${charge.jobId}`;
  if (charge.requestBinding !== undefined) return `request:${charge.requestBinding}`;
  return `call:${charge.description}`;
}
