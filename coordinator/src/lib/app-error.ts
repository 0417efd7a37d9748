/**
 * The one error taxonomy. Services throw AppError with a code; transports map the code to an
 * HTTP status (or JSON-RPC error). `blame`, `retryable` and `refund` drive retries and refunds
 * from this table rather than from guesses at the call site.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, blame: 'user', retryable: false },
  invalid_format: { status: 400, blame: 'user', retryable: false },
  wrong_endpoint: { status: 400, blame: 'user', retryable: false },
  upload_missing: { status: 400, blame: 'user', retryable: false },
  unsupported_media: { status: 400, blame: 'user', retryable: false },
  not_implemented_job_type: { status: 400, blame: 'user', retryable: false },
  unauthenticated: { status: 401, blame: 'user', retryable: false },
  payment_required: { status: 402, blame: 'user', retryable: false },
  forbidden: { status: 403, blame: 'user', retryable: false },
  not_found: { status: 404, blame: 'user', retryable: false },
  conflict: { status: 409, blame: 'user', retryable: true },
  stale_attempt: { status: 409, blame: 'system', retryable: false },
  payload_too_large: { status: 413, blame: 'user', retryable: false },
  unavailable: { status: 503, blame: 'system', retryable: true },
  internal: { status: 500, blame: 'system', retryable: true },
} as const satisfies Record<string, { status: number; blame: 'user' | 'system'; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
