import { z } from 'zod';
import { WORK_KINDS } from './subjects.ts';

/**
 * Coordinator ↔ render-agent messages. Every payload carries `v`; every call an agent makes
 * about a job carries the fence `{job_id, attempt_id}` and the coordinator refuses a stale one.
 * Schemas and types share one name. Enum members are only ever added.
 */
const v = z.literal(1);
const Id = z.uuid();

export const WorkKind = z.enum(WORK_KINDS);
export type WorkKind = z.infer<typeof WorkKind>;

/** JetStream payload: "job X has work of kind K". Carries no authority; the claim decides. */
export const WorkWakeup = z.object({ v, job_id: Id, kind: WorkKind, enqueued_at: z.iso.datetime() });
export type WorkWakeup = z.infer<typeof WorkWakeup>;

export const AgentCapabilities = z.object({
  v,
  agent_id: z.string().min(1).max(128),
  version: z.string(),
  hostname: z.string(),
  ffmpeg: z.object({
    version: z.string(),
    encoders: z.array(z.string()),
    /** True only when a one-frame h264_nvenc session actually opened. */
    nvenc: z.boolean(),
  }),
  cuda: z.object({ available: z.boolean(), devices: z.array(z.string()) }),
  whisper: z.object({ models: z.array(z.string()), device: z.enum(['cpu', 'cuda']), compute_type: z.string() }),
  free_disk_bytes: z.number().int().nonnegative(),
  work_kinds: z.array(WorkKind),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;

export const ClaimRequest = z.object({ v, job_id: Id, agent_id: z.string().min(1) });
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/** Where an agent writes one output: a presigned PUT, so agents hold no storage credentials. */
export const OutputTarget = z.object({ put_url: z.url(), content_type: z.string(), key: z.string() });
export type OutputTarget = z.infer<typeof OutputTarget>;

export const TranscribeParams = z.object({
  /** ISO 639-1 code to force, or null to detect. */
  language: z.string().nullable(),
  model: z.string(),
});

export const Assignment = z.object({
  v,
  job_id: Id,
  attempt_id: Id,
  job_type: z.literal('transcribe'),
  kind: WorkKind,
  /** Renew (heartbeat) at half this. */
  lease_ms: z.number().int().positive(),
  source: z.object({ get_url: z.url(), content_type: z.string(), size: z.number().int().nullable() }),
  /** Keys are output names: `transcript_srt` (SRT) and `transcript_words` (transcript v2 JSON). */
  outputs: z.record(z.string(), OutputTarget),
  params: TranscribeParams,
});
export type Assignment = z.infer<typeof Assignment>;

export const ClaimResponse = z.discriminatedUnion('claimed', [
  z.object({ v, claimed: z.literal(true), assignment: Assignment }),
  z.object({ v, claimed: z.literal(false), reason: z.string() }),
]);
export type ClaimResponse = z.infer<typeof ClaimResponse>;

export const Fence = z.object({ v, job_id: Id, attempt_id: Id, agent_id: z.string().min(1) });
export type Fence = z.infer<typeof Fence>;

export const HeartbeatResponse = z.object({ v, lease_expires_at: z.iso.datetime(), cancel: z.boolean() });
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

/** Pipeline stages that are also job statuses; reported through HTTP because they are state. */
export const Stage = z.enum(['extracting_audio', 'transcribing', 'analyzing']);
export type Stage = z.infer<typeof Stage>;


/** Lossy progress over core NATS; the coordinator coalesces (newest wins, ~1/s). */
export const ProgressEvent = Fence.extend({
  stage: Stage,
  /** 0..1 within the stage. */
  fraction: z.number().min(0).max(1),
  message: z.string().max(200).optional(),
  at: z.iso.datetime(),
});
export type ProgressEvent = z.infer<typeof ProgressEvent>;

export const MediaInfo = z.object({
  duration_seconds: z.number().nonnegative(),
  has_video: z.boolean(),
  has_audio: z.boolean(),
  format_name: z.string(),
});
export type MediaInfo = z.infer<typeof MediaInfo>;

/**
 * A stage change. `media` (the probe) comes with `transcribing`: the coordinator checks it
 * against what the caller declared and paid for (a video uploaded as audio is refused).
 */
export const StageRequest = Fence.extend({ stage: Stage, media: MediaInfo.optional() });
export type StageRequest = z.infer<typeof StageRequest>;

export const CompleteRequest = Fence.extend({
  media: MediaInfo,
  language: z.string(),
  /** Output names from the assignment that were written, with their byte sizes. */
  outputs: z.array(z.object({ name: z.string(), bytes: z.number().int().nonnegative() })),
});
export type CompleteRequest = z.infer<typeof CompleteRequest>;

/** Failure classes an agent may report; the coordinator's error table decides retry/refund. */
export const FailureCode = z.enum(['media_invalid', 'media_no_audio', 'media_too_long', 'source_unavailable', 'output_upload_failed', 'tool_failed', 'internal']);
export type FailureCode = z.infer<typeof FailureCode>;

export const FailRequest = Fence.extend({ code: FailureCode, message: z.string().max(2000) });
export type FailRequest = z.infer<typeof FailRequest>;

/** Body of a refused fenced call (HTTP 409): the agent must stop the attempt at once. */
export const StaleAttempt = z.object({ v, error: z.string(), stale: z.literal(true) });
export type StaleAttempt = z.infer<typeof StaleAttempt>;

/** Internal HTTP routes on the coordinator (Authorization: Bearer <agent token>). */
export const AGENT_ROUTES = {
  register: '/internal/v1/agents/register',
  claim: '/internal/v1/claims',
  heartbeat: '/internal/v1/attempts/heartbeat',
  stage: '/internal/v1/attempts/stage',
  complete: '/internal/v1/attempts/complete',
  fail: '/internal/v1/attempts/fail',
} as const;
