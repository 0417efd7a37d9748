/**
 * Problem Details (RFC 9457) bodies of the Payment HTTP authentication scheme.
 *
 * Types, titles and statuses follow draft-httpauth-payment-01 "Error Codes" and mppx 0.11.0's
 * `Errors` module (same titles, same type URLs). Note the draft answers every credential
 * failure with **402** plus a fresh challenge; only `method-unsupported` is a 400. Build
 * problems through {@link paymentProblem} so they carry the draft's status.
 */
import { PaymentProblem, type ProblemType } from '../types.ts';

export const PROBLEM_BASE_URL = 'https://paymentauth.org/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** `title` of each problem type, identical to mppx's `Errors.*Error.title`. */
export const PROBLEM_TITLES: Record<ProblemType, string> = {
  'payment-required': 'Payment Required',
  'malformed-credential': 'Malformed Credential',
  'invalid-challenge': 'Invalid Challenge',
  'verification-failed': 'Verification Failed',
  'payment-insufficient': 'Payment Insufficient',
  'payment-expired': 'Payment Expired',
  'method-unsupported': 'Method Unsupported',
};

/** HTTP status of each problem type (draft-httpauth-payment-01 §Error Codes; mppx agrees). */
export const PROBLEM_STATUS: Record<ProblemType, number> = {
  'payment-required': 402,
  'malformed-credential': 402,
  'invalid-challenge': 402,
  'verification-failed': 402,
  'payment-insufficient': 402,
  'payment-expired': 402,
  'method-unsupported': 400,
};

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  challengeId?: string;
  /**
   * The spec's ErrorResponse field (`{error: <message>}`, the same text as `detail`), on every
   * problem that is not a 402: the spec answers every error but the 402 with `{error}`, and
   * problem+json may add to that. A 402 body is the spec's PaymentRequired402 as is.
   */
  error?: string;
}

/** The `type` URI of a problem type. */
export function problemTypeUrl(type: ProblemType): string {
  return `${PROBLEM_BASE_URL}${type}`;
}

/** A {@link PaymentProblem} with the draft's status for its type. */
export function paymentProblem(type: ProblemType, detail: string, opts: { challengeId?: string | undefined; cause?: unknown } = {}): PaymentProblem {
  return new PaymentProblem(type, detail, {
    status: PROBLEM_STATUS[type],
    ...(opts.challengeId !== undefined && { challengeId: opts.challengeId }),
    ...(opts.cause !== undefined && { cause: opts.cause }),
  });
}

/**
 * The problem+json body. `challengeId` names the challenge the response carries (for a 402
 * that is the fresh challenge's id), per the spec's PaymentRequired402. A problem answered with
 * another status (`method-unsupported`: 400) also carries the spec's `error` field.
 */
export function problemBody(type: ProblemType, detail: string, opts: { status?: number; challengeId?: string | undefined } = {}): ProblemDetails {
  const status = opts.status ?? PROBLEM_STATUS[type];
  return {
    type: problemTypeUrl(type),
    title: PROBLEM_TITLES[type],
    status,
    detail,
    ...(opts.challengeId !== undefined && { challengeId: opts.challengeId }),
    ...(status !== 402 && { error: detail }),
  };
}

/** Body for a thrown {@link PaymentProblem}; `challengeId` overrides the one it carries. */
export function problemFromError(problem: PaymentProblem, challengeId?: string): ProblemDetails {
  return problemBody(problem.type, problem.message, {
    status: problem.status,
    challengeId: challengeId ?? problem.challengeId,
  });
}
