import { ERRORS, type ErrorCode } from '@cutroom/shared/failures';
import type { EditProblem } from '@cutroom/shared/transcript/edit-format';

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
  /** The lines of a refused edit (edit_from_transcript), each with why: transports show them all, beside the message. */
  readonly problems: readonly EditProblem[] | undefined;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; next?: { call: NextCall; jobId?: string }; problems?: readonly EditProblem[] }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.next = options?.next;
    this.problems = options?.problems;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
