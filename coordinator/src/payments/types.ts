import type { Rail } from '@cutroom/shared/payment-methods';

/**
 * Problem types of draft-ryan-httpauth-payment (all under https://paymentauth.org/problems/).
 * `payment-required` is the 402; the others are 400s (402 for insufficient/expired per draft).
 */
export const PROBLEM_TYPES = [
  'payment-required',
  'malformed-credential',
  'invalid-challenge',
  'verification-failed',
  'payment-insufficient',
  'payment-expired',
  'method-unsupported',
] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

/** Thrown by rails and the wire layer; the HTTP adapter turns it into problem+json. */
export class PaymentProblem extends Error {
  readonly type: ProblemType;
  readonly status: number;
  readonly challengeId: string | undefined;
  /** Its class in the failure taxonomy (shared/src/failures.ts): an unusable credential, or a method we do not take. */
  get code(): 'payment_invalid' | 'invalid_request' {
    return this.type === 'method-unsupported' ? 'invalid_request' : 'payment_invalid';
  }
  constructor(type: ProblemType, detail: string, opts: { status?: number; challengeId?: string; cause?: unknown } = {}) {
    super(detail, { cause: opts.cause });
    this.name = 'PaymentProblem';
    this.type = type;
    // Per draft-httpauth-payment every credential problem is a 402 (with a fresh challenge), except method-unsupported.
    this.status = opts.status ?? (type === 'method-unsupported' ? 400 : 402);
    this.challengeId = opts.challengeId;
  }
}

/** What a paid operation costs on each rail it accepts (base units: cents, USDC 6-decimals). */
export interface Charge {
  /** Stable description of what is bought, e.g. `transcribe job 3f…` or `smoke test`. */
  description: string;
  /** Job the payment is for (its externalId in challenges); null for the smoke test and paid creation. */
  jobId: string | null;
  /** Job to book the charge under when it differs from jobId (paid creation: the job id exists only once paid). */
  ledgerJobId?: string;
  /** For a session-owned job: the owner tag a credential's challenge must carry (owner-tag.ts). */
  ownerTag?: string;
  /**
   * For a call whose price names no job yet (paid creation): the digest of the request that gets
   * the 402 (request-binding.ts `requestDigest`). Bound into the challenges; a credential is
   * accepted only by a request with the same digest.
   */
  requestBinding?: string;
  amounts: Partial<Record<Rail, bigint>>;
  /**
   * Authorize `amounts.card` without taking it (a manual-capture PaymentIntent) instead of charging:
   * for a job whose price depends on what it delivers (the agent products: the worst case is held,
   * what was delivered captured later, payments/holds.ts). Card only; settlement books a `hold`.
   */
  hold?: boolean;
}

/** A settled payment, written to the ledger by the caller. */
export interface Settlement {
  rail: Rail;
  method: string;
  amount: bigint;
  currency: string;
  /** tx hash (chain) or PaymentIntent id (card). */
  reference: string;
  /** Who paid: `did:pkh:eip155:<id>:<address>` or the card processor's customer/PM reference. */
  payer: string | null;
  /** `hold`: authorized, not taken (captured later for what was delivered); absent for a charge. */
  intent?: 'hold';
}
