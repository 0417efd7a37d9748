import { Credential as MppxCredential, PaymentRequest } from 'mppx';
import { PaymentRequiredError, PaymentRequiredWithCheckout } from '../service/index.ts';
import { toJsonChallenge } from '../payments/mpp/challenge.ts';
import { parseCredentialObject, parsePaymentAuthorization } from '../payments/mpp/credential.ts';
import { problemBody, problemFromError } from '../payments/mpp/problem.ts';
import { parseReceipt } from '../payments/mpp/receipt.ts';
import { PaymentProblem } from '../payments/types.ts';

/**
 * Payments over MCP (the MPP MCP transport draft, payments.md "MCP"; WIRE.md "MCP"): the
 * credential arrives as an object in `params._meta["org.paymentauth/credential"]`, a call that
 * needs payment is the JSON-RPC error -32042 with the challenges (request as a JSON object),
 * and the receipt goes back in `result._meta["org.paymentauth/receipt"]`. The gate itself is
 * the one REST uses: the credential object is turned into the same `Payment …` header value.
 */
export const CREDENTIAL_META_KEY = 'org.paymentauth/credential';
export const RECEIPT_META_KEY = 'org.paymentauth/receipt';
export const PAYMENT_REQUIRED_CODE = -32042;
export const PAYMENT_VERIFICATION_FAILED_CODE = -32043;
const INVALID_PARAMS_CODE = -32602;

/**
 * A JSON-RPC error the SDK passes through as is (its `code`, `message` and `data`). Not the SDK's
 * McpError, whose message carries an "MCP error <code>:" prefix on the wire.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown>;
  constructor(code: number, message: string, data: Record<string, unknown>) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }
}

/** The credential of a call as the `Authorization: Payment …` value the gate reads, or undefined. */
export function authorizationOfMeta(meta: Record<string, unknown> | undefined): string | undefined {
  const value = meta?.[CREDENTIAL_META_KEY];
  if (value === undefined) return undefined;
  // Validated the way mppx's MCP server transport does: re-serialized, then parsed as a header.
  parseCredentialObject(value);
  return MppxCredential.serialize(value as MppxCredential.Credential);
}

/** What a credential says about itself: the challenge it answers and the job it pays (externalId), if any. */
export function credentialTarget(authorization: string): { challengeId: string; jobId: string | null } {
  const cred = parsePaymentAuthorization(authorization);
  let externalId: unknown;
  try {
    externalId = (PaymentRequest.deserialize(cred.challenge.request) as Record<string, unknown>)['externalId'];
  } catch {
    // An undecodable request names no job; the gate refuses the credential itself (invalid-challenge).
    externalId = undefined;
  }
  return { challengeId: cred.challenge.id, jobId: typeof externalId === 'string' ? externalId : null };
}

/** What the agent needs beside the challenges to pay another way or to go on (job id, checkout URL, session). */
export type PaymentContext = Record<string, unknown>;

/**
 * A payment error of the gate as MCP answers it: -32042 with the challenges and the problem
 * (and, for browser hosts, the hosted checkout URL: the context's, or the one the error offers
 * with the job and the session created to own it); a refused credential is -32043 with a fresh
 * offer, a malformed one -32602 (as mppx maps them). Other errors are not payment errors: null.
 */
export function paymentErrorToMcp(err: unknown, context: PaymentContext = {}): JsonRpcError | null {
  const extras = {
    ...(err instanceof PaymentRequiredWithCheckout && err.checkout),
    ...Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined)),
  };
  if (err instanceof PaymentRequiredError) {
    const challenges = err.offer.challenges.map(toJsonChallenge);
    const challengeId = err.offer.challenges[0]?.id;
    const problem = err.problem ? problemFromError(err.problem, challengeId) : problemBody('payment-required', err.message, { challengeId });
    const refused = err.problem !== null && err.problem.type !== 'payment-required';
    const code = refused ? (err.problem?.type === 'malformed-credential' ? INVALID_PARAMS_CODE : PAYMENT_VERIFICATION_FAILED_CODE) : PAYMENT_REQUIRED_CODE;
    const checkout = !refused && typeof extras['checkout_url'] === 'string';
    const message = !checkout
      ? err.message
      : challenges.length
        ? `${err.message}: answer one of the challenges (repeat the call with the credential in _meta), or pay at checkout_url (hosted card checkout)`
        : `${err.message}: pay at checkout_url (hosted card checkout)`;
    return new JsonRpcError(code, message, { httpStatus: 402, challenges, problem, ...extras });
  }
  if (err instanceof PaymentProblem) {
    const code = err.type === 'malformed-credential' ? INVALID_PARAMS_CODE : PAYMENT_VERIFICATION_FAILED_CODE;
    return new JsonRpcError(code, err.message, { httpStatus: err.status, challenges: [], problem: problemFromError(err), ...extras });
  }
  return null;
}

/** The receipt of a paid call for `result._meta`: the Payment-Receipt header's object plus the challenge it answered. */
export function receiptMeta(receiptHeaders: Record<string, string>, challengeId: string | undefined): Record<string, unknown> | undefined {
  const header = receiptHeaders['Payment-Receipt'];
  if (!header) return undefined;
  return { [RECEIPT_META_KEY]: { ...parseReceipt(header), ...(challengeId && { challengeId }) } };
}
