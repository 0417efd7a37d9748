import { ERRORS, type ErrorCode } from '@cutroom/shared/failures';

export type { ErrorCode };

/**
 * The call a caller should make next, named for no transport: REST renders it as a route, MCP as
 * a tool. Service-layer messages never name REST routes themselves.
 */
export type NextCall = 'create_session' | 'upload_url' | 'complete_upload' | 'process' | 'checkout';

/**
 * The one error a service throws when it refuses a call. Its code is classified in
 * shared/src/failures.ts (HTTP status, JSON-RPC code, retryable); transports map, never decide.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly next: { call: NextCall; jobId?: string } | undefined;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; next?: { call: NextCall; jobId?: string } }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.next = options?.next;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
