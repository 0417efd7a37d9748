import type { FailureCode } from '@cutroom/proto';

/**
 * What each failure class an agent reports means for the job. User-blamed failures (the file
 * is not media) fail at once; system failures are retried on another attempt up to MAX_ATTEMPTS.
 * Every failed job is refunded.
 */
export const FAILURE_POLICY: Record<FailureCode, { blame: 'user' | 'system'; retryable: boolean }> = {
  media_invalid: { blame: 'user', retryable: false },
  media_no_audio: { blame: 'user', retryable: false },
  media_too_long: { blame: 'user', retryable: false },
  source_unavailable: { blame: 'system', retryable: true },
  output_upload_failed: { blame: 'system', retryable: true },
  tool_failed: { blame: 'system', retryable: true },
  internal: { blame: 'system', retryable: true },
};

/** Message a caller sees for a system failure: theirs is shown verbatim, ours is not leaked. */
export function callerMessage(code: FailureCode, message: string): string {
  return FAILURE_POLICY[code].blame === 'user' ? message : `processing failed on our side (${code}); the job was refunded, please try again`;
}
