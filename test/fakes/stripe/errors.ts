// Stripe's error body: `{error: {type, message, code?, param?, decline_code?, …}}` with the HTTP
// status the official client maps to its error classes (400/404 → StripeInvalidRequestError,
// 401 → StripeAuthenticationError, 402 → StripeCardError, 409 idempotency_error, 5xx → StripeAPIError).

export type StripeErrorType = 'invalid_request_error' | 'card_error' | 'idempotency_error' | 'api_error';

export interface FakeStripeErrorInit {
  status: number;
  type: StripeErrorType;
  message: string;
  code?: string;
  param?: string;
  /** Extra fields of the error object, e.g. `decline_code`, `payment_intent` on a decline. */
  extra?: Record<string, unknown>;
  /**
   * Whether an Idempotency-Key stores this outcome. Stripe saves a result only once the endpoint
   * started executing: parameter validation failures are not saved, declines and state
   * conflicts are. @default true
   */
  persist?: boolean;
}

export class FakeStripeError extends Error {
  override name = 'FakeStripeError';
  readonly status: number;
  readonly persist: boolean;
  readonly init: FakeStripeErrorInit;
  constructor(init: FakeStripeErrorInit) {
    super(init.message);
    this.init = init;
    this.status = init.status;
    this.persist = init.persist ?? true;
  }
  toBody(): { error: Record<string, unknown> } {
    const { type, message, code, param, extra } = this.init;
    return {
      error: {
        type,
        message,
        ...(code !== undefined && { code, doc_url: `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}` }),
        ...(param !== undefined && { param }),
        ...extra,
      },
    };
  }
}

/** A 400 from parameter validation: not stored under an idempotency key. */
export function invalidParam(message: string, code: string, param?: string): FakeStripeError {
  return new FakeStripeError({ status: 400, type: 'invalid_request_error', message, code, persist: false, ...(param && { param }) });
}

/** A 400 decided while executing (state conflict, amount too large): stored under the key. */
export function invalidState(message: string, code?: string, param?: string): FakeStripeError {
  return new FakeStripeError({ status: 400, type: 'invalid_request_error', message, ...(code && { code }), ...(param && { param }) });
}

/** Stripe's "No such payment_intent: 'pi_…'" (404 on a path id, 400 on a body parameter). */
export function noSuch(objectName: string, id: string, param: string, status: 400 | 404 = 404): FakeStripeError {
  return new FakeStripeError({
    status,
    type: 'invalid_request_error',
    message: `No such ${objectName}: '${id}'`,
    code: 'resource_missing',
    param,
    persist: false,
  });
}
