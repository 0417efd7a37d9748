import { z } from 'zod';
import { LIMITS } from './limits.ts';

/**
 * The one failure taxonomy, in two halves that every transport and both processes read:
 *
 * - ErrorCode: why a call was refused (nothing started, nothing charged). The service layer
 *   throws these; REST answers `status` with `{error}`, MCP and tRPC answer JSON-RPC `rpc`.
 * - FailureCode: why a job (or one attempt of it) ended badly, as reported by an agent or decided
 *   by the coordinator. `blame` picks the caller-facing message, `retryable` decides whether
 *   another attempt runs (up to MAX_ATTEMPTS), `refund` whether the charge goes back. `status` and
 *   `rpc` are what a transport answers when it reports a failed job as a call error (a one-call
 *   product that waits for its job).
 *
 * JSON-RPC codes: -32602 invalid params and -32603 internal error are JSON-RPC's own; -32042
 * (payment required) and -32043 (payment verification failed) are the MPP transport's; the rest
 * are ours, in the server range -32000..-32099, as -32000 - (HTTP status - 400) where one fits.
 */
export const ErrorCode = z.enum([
  'invalid_request',
  'invalid_format',
  'wrong_endpoint',
  'upload_missing',
  'unsupported_media',
  'not_implemented_job_type',
  'unauthenticated',
  'payment_required',
  'payment_invalid',
  'forbidden',
  'not_found',
  'conflict',
  // the parent a derivative names has expired or lost its source: gone for good (HTTP 410)
  'source_gone',
  'stale_attempt',
  'payload_too_large',
  'unavailable',
  'too_many_requests',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export interface ErrorClass {
  status: number;
  rpc: number;
  /** The same call may succeed if repeated unchanged (transports add Retry-After / a hint). */
  retryable: boolean;
}

export const ERRORS: Readonly<Record<ErrorCode, ErrorClass>> = {
  invalid_request: { status: 400, rpc: -32602, retryable: false },
  invalid_format: { status: 400, rpc: -32602, retryable: false },
  wrong_endpoint: { status: 400, rpc: -32602, retryable: false },
  upload_missing: { status: 400, rpc: -32602, retryable: false },
  unsupported_media: { status: 400, rpc: -32602, retryable: false },
  not_implemented_job_type: { status: 400, rpc: -32602, retryable: false },
  unauthenticated: { status: 401, rpc: -32001, retryable: false },
  payment_required: { status: 402, rpc: -32042, retryable: false },
  payment_invalid: { status: 402, rpc: -32043, retryable: false },
  forbidden: { status: 403, rpc: -32003, retryable: false },
  not_found: { status: 404, rpc: -32004, retryable: false },
  conflict: { status: 409, rpc: -32009, retryable: false },
  source_gone: { status: 410, rpc: -32010, retryable: false },
  stale_attempt: { status: 409, rpc: -32009, retryable: false },
  payload_too_large: { status: 413, rpc: -32013, retryable: false },
  unavailable: { status: 503, rpc: -32053, retryable: true },
  too_many_requests: { status: 429, rpc: -32029, retryable: true },
  internal: { status: 500, rpc: -32603, retryable: true },
};

/** The failure codes an agent may send in `fail` (proto FailRequest). */
const AGENT_FAILURES = [
  'media_invalid',
  'media_no_audio',
  'media_too_long',
  // media by URL (source_url): the caller's URL was refused or could not be fetched as media
  'source_url_failed',
  'source_unavailable',
  'output_upload_failed',
  'tool_failed',
  'internal',
  // a stage ran past its wall-clock limit (derived from the media duration); the child was killed
  'stage_timeout',
] as const;
/** The ones only the coordinator decides. */
const COORDINATOR_FAILURES = [
  'media_kind_mismatch',
  'lease_expired',
  'attempts_exhausted',
  // what an attempt reported or uploaded did not pass validation at completion
  'output_invalid',
  // a derivative's parent lost its source (expired, deleted) before an agent could read it
  'parent_source_gone',
  // publish_video (coordinator/src/publishing/): the video host account's grant was revoked or is invalid
  'publish_auth_revoked',
  // the video host refused the video or its metadata for good (the host's reason is shown)
  'publish_rejected',
  // the host's daily quota stayed exhausted past PUBLISH_QUOTA_MAX_WAIT_HOURS
  'publish_quota_exhausted',
  // the host kept failing (5xx, rate limits, network) past the workflow's attempts
  'publish_host_unavailable',
  // an operator cancelled the job (admin console / API); refunded like every failure
  'operator_cancelled',
] as const;

export const FailureCode = z.enum([...AGENT_FAILURES, ...COORDINATOR_FAILURES]);
export type FailureCode = z.infer<typeof FailureCode>;

export interface FailureClass {
  /** Who may name this failure: an agent in its `fail` call, or the coordinator itself. */
  reporter: 'agent' | 'coordinator';
  /**
   * user: the input is at fault, and the caller reads why (the coordinator's own text, or an agent's
   * detail rendered from failure-details.ts); system: ours, the detail is logged, not shown.
   */
  blame: 'user' | 'system';
  /** Another attempt (on another agent where one can take it) may succeed. */
  retryable: boolean;
  /** A job that ends with this failure is paid back. The spec: every failed job is refunded. */
  refund: boolean;
  status: number;
  rpc: number;
}

const userFault = { blame: 'user', retryable: false, refund: true, status: 422, rpc: -32022 } as const;
const ourFault = { blame: 'system', retryable: true, refund: true, status: 502, rpc: -32050 } as const;

export const FAILURES: Readonly<Record<FailureCode, FailureClass>> = {
  media_invalid: { reporter: 'agent', ...userFault },
  media_no_audio: { reporter: 'agent', ...userFault },
  media_too_long: { reporter: 'agent', ...userFault },
  source_url_failed: { reporter: 'agent', ...userFault },
  source_unavailable: { reporter: 'agent', ...ourFault },
  output_upload_failed: { reporter: 'agent', ...ourFault },
  tool_failed: { reporter: 'agent', ...ourFault },
  internal: { reporter: 'agent', ...ourFault },
  stage_timeout: { reporter: 'agent', ...ourFault },
  output_invalid: { reporter: 'coordinator', ...ourFault },
  parent_source_gone: { reporter: 'coordinator', ...userFault },
  media_kind_mismatch: { reporter: 'coordinator', ...userFault },
  lease_expired: { reporter: 'coordinator', ...ourFault },
  attempts_exhausted: { reporter: 'coordinator', ...ourFault, retryable: false },
  publish_auth_revoked: { reporter: 'coordinator', ...userFault },
  publish_rejected: { reporter: 'coordinator', ...userFault },
  // Ours to show: the caller can do nothing but try again later, and the message says so.
  publish_quota_exhausted: { reporter: 'coordinator', ...ourFault, retryable: false },
  publish_host_unavailable: { reporter: 'coordinator', ...ourFault, retryable: false },
  operator_cancelled: { reporter: 'coordinator', ...ourFault, retryable: false },
};

export const AgentFailureCode = FailureCode.extract(AGENT_FAILURES);
export type AgentFailureCode = z.infer<typeof AgentFailureCode>;

/**
 * What a caller reads when an agent reported a user-blamed failure without a detail the
 * coordinator can render (failure-details.ts): the agent's own words are never shown.
 */
const UNDETAILED: Readonly<Partial<Record<FailureCode, string>>> = {
  media_invalid: 'the media could not be read',
  media_no_audio: 'the media has no audio stream, so there is nothing to transcribe',
  media_too_long: `the media is longer than the limit of ${(LIMITS.mediaMaxSeconds / 3600).toFixed(0)} h`,
  source_url_failed: 'the source_url could not be fetched as a media file',
};

/**
 * What the caller reads in error_message. `detail` is the coordinator's own text: shown as it is
 * for the user-blamed failures the coordinator decides (it says what is wrong with their request);
 * logged, not shown, for ours, which never leak internals and say the job was refunded. A failure
 * an agent reported is rendered from its detail (failure-details.ts reportedFailureMessage); here
 * it gets its code's generic sentence, whatever `detail` says.
 */
export function failureMessage(code: FailureCode, detail: string): string {
  const { blame, reporter } = FAILURES[code];
  if (blame === 'user') return reporter === 'coordinator' ? detail : (UNDETAILED[code] ?? 'the input could not be processed');
  if (code === 'attempts_exhausted') return `processing did not finish (${detail}); the job was refunded, please try again`;
  if (code === 'publish_quota_exhausted')
    return `the video host's daily upload quota is used up (${detail}); the job was refunded, please publish again tomorrow`;
  if (code === 'operator_cancelled') return `the job was cancelled by the service operator (${detail}); the job was refunded`;
  if (code === 'publish_host_unavailable') return `the video host kept failing (${detail}); the job was refunded, please try again later`;
  return `processing failed on our side (${code}); the job was refunded, please try again`;
}

/** Whether a failed attempt with this code runs again, given how many attempts were made. */
export const shouldRetry = (code: FailureCode, attempts: number, maxAttempts: number): boolean => FAILURES[code].retryable && attempts < maxAttempts;
