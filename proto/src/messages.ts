import { z } from 'zod';
import { FailureDetail } from '@cutroom/shared/failure-details';
import { AgentFailureCode } from '@cutroom/shared/failures';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import { VerticalProfile } from '@cutroom/shared/clips/profiles';
import { PixelBox, SubjectStrategy } from '@cutroom/shared/clips/subjects-v1';
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
  /** GPUs as nvidia-smi lists them (name, memory in MiB); empty without a driver. Added in protocol 1.1. */
  gpus: z.array(z.object({ name: z.string(), memory_mib: z.number().int().nonnegative() })).default([]),
  /** Logical CPU cores. Added in protocol 1.1. */
  cpu_cores: z.number().int().nonnegative().default(0),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;

/**
 * What an operator set for this agent, told in answer to every announcement and refused claim:
 * `active` pulls work; `draining` finishes its attempt and pulls nothing (until resumed).
 * `rotate_credential`: trade the credential for a new one now (AGENT_ROUTES.rotate).
 */
export const AgentControl = z.object({ state: z.enum(['active', 'draining']), rotate_credential: z.boolean() });
export type AgentControl = z.infer<typeof AgentControl>;

export const RegisterResponse = z.object({ v, ok: z.literal(true), control: AgentControl });
export type RegisterResponse = z.infer<typeof RegisterResponse>;

/**
 * After registering, an agent asks for its NATS user JWT (docs/adr/0009): it holds the key's seed,
 * sends the public key, and gets a JWT scoped to the work kinds it registered and to its own
 * subjects. `jwt` null: the coordinator runs NATS without authentication (NATS_AUTH=none). Added
 * in protocol 1.2; `inbox_prefix` is what the agent's NATS client must use for replies.
 */
export const NatsCredentialRequest = z.object({
  v,
  agent_id: z.string().min(1).max(128),
  public_key: z.string().regex(/^U[A-Z2-7]{55}$/, 'a NATS user public key (U…, 56 characters)'),
});
export type NatsCredentialRequest = z.infer<typeof NatsCredentialRequest>;
export const NatsCredentialResponse = z.object({ v, jwt: z.string().nullable(), inbox_prefix: z.string() });
export type NatsCredentialResponse = z.infer<typeof NatsCredentialResponse>;

/** Enrollment: Authorization: Bearer <enrollment token>; the answer's token is this agent's own credential. */
export const EnrollRequest = z.object({
  v,
  agent_id: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
  hostname: z.string().max(255),
});
export type EnrollRequest = z.infer<typeof EnrollRequest>;
export const EnrollResponse = z.object({ v, agent_id: z.string(), token: z.string(), tags: z.array(z.string()) });
export type EnrollResponse = z.infer<typeof EnrollResponse>;
/** Rotation (with the current credential): the new one; the old one stops working after a grace period. */
export const RotateResponse = z.object({ v, agent_id: z.string(), token: z.string(), previous_expires_at: z.iso.datetime() });
export type RotateResponse = z.infer<typeof RotateResponse>;

export const ClaimRequest = z.object({ v, job_id: Id, agent_id: z.string().min(1) });
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/** Where an agent writes one output: a presigned PUT, so agents hold no storage credentials. */
export const OutputTarget = z.object({ put_url: z.url(), content_type: z.string(), key: z.string() });
export type OutputTarget = z.infer<typeof OutputTarget>;

/** Where the source comes from: a presigned GET of the stored upload (or the parent job's source). */
export const SourceRef = z.object({ get_url: z.url(), content_type: z.string(), size: z.number().int().nullable() });
export type SourceRef = z.infer<typeof SourceRef>;

/** Fields every assignment carries, whatever its job type. */
const AssignmentBase = z.object({
  v,
  job_id: Id,
  attempt_id: Id,
  kind: WorkKind,
  /** Renew (heartbeat) at half this. */
  lease_ms: z.number().int().positive(),
  /** Output name → where to PUT it. The names a job type writes are listed in PROTOCOL.md. */
  outputs: z.record(z.string(), OutputTarget),
});

export const TranscribeParams = z.object({
  /** ISO 639-1 code to force, or null to detect. */
  language: z.string().nullable(),
  model: z.string(),
});

/** transcribe: outputs `transcript_srt` (SRT) and `transcript_words` (transcript v2 JSON). */
export const TranscribeAssignment = AssignmentBase.extend({
  job_type: z.literal('transcribe'),
  source: SourceRef,
  params: TranscribeParams,
});
export type TranscribeAssignment = z.infer<typeof TranscribeAssignment>;

export const FindClipsParams = TranscribeParams.extend({
  /** 1-500 characters: query mode (the moments that match it); null: the best moments. */
  query: z.string().min(1).max(500).nullable(),
});

/**
 * find_clips: an upload → transcript (like transcribe) → clip candidates. Outputs
 * `transcript_srt`, `transcript_words` and `clips` (clips v1 JSON, `@cutroom/shared/clips/clips-v1`).
 * Stages: extracting_audio (claimed) → transcribing (reported with the probe) → analyzing (reported).
 */
export const FindClipsAssignment = AssignmentBase.extend({
  job_type: z.literal('find_clips'),
  source: SourceRef,
  params: FindClipsParams,
});
export type FindClipsAssignment = z.infer<typeof FindClipsAssignment>;

/**
 * summarize: an upload → transcript (like transcribe) → a summary. Outputs `transcript_srt`,
 * `transcript_words` and `summary` (summary v1 JSON, `@cutroom/shared/summary/summary-v1`).
 * Stages: extracting_audio (claimed) → transcribing (reported with the probe) → analyzing (reported).
 */
export const SummarizeAssignment = AssignmentBase.extend({
  job_type: z.literal('summarize'),
  source: SourceRef,
  params: TranscribeParams,
});
export type SummarizeAssignment = z.infer<typeof SummarizeAssignment>;

/** One cut, in source seconds: first frame = the frame at `start`, last = the one before `end`. */
export const CutSegment = z.object({ start: z.number().nonnegative(), end: z.number().positive(), label: z.string().nullable() });
export type CutSegment = z.infer<typeof CutSegment>;

export const ExtractClipParams = z.object({
  segments: z.array(CutSegment).min(1),
  /**
   * Presigned GET of the parent's transcript v2 (words) when the caller asked for the re-timed
   * transcript (include_transcript), else null: then only `clip` is in `outputs`.
   */
  parent_words_url: z.url().nullable(),
});

/**
 * extract_clip: the parent's stored source (a presigned GET) cut into one mp4. Outputs `clip`
 * (video/mp4), and with a transcript `transcript_srt` and `transcript_words` re-timed to the cut.
 */
export const ExtractClipAssignment = AssignmentBase.extend({
  job_type: z.literal('extract_clip'),
  source: SourceRef,
  params: ExtractClipParams,
});
export type ExtractClipAssignment = z.infer<typeof ExtractClipAssignment>;

/**
 * edit_from_transcript: the cut list the coordinator built from the caller's edit (up to 300
 * segments, in the edited order), rendered exactly as extract_clip renders its segments. Outputs
 * `clip` (video/mp4), `transcript_srt` and `transcript_words` re-timed to the edit
 * (`parent_words_url` is always set).
 */
export const EditFromTranscriptAssignment = AssignmentBase.extend({
  job_type: z.literal('edit_from_transcript'),
  source: SourceRef,
  params: ExtractClipParams.extend({ parent_words_url: z.url() }),
});
export type EditFromTranscriptAssignment = z.infer<typeof EditFromTranscriptAssignment>;

export const ExtractVerticalClipParams = z.object({
  start: z.number().nonnegative(),
  end: z.number().positive(),
  profile: VerticalProfile,
  subject: SubjectStrategy,
  subject_id: z.string().max(64).nullable(),
  /** Source pixels; required for `manual`. */
  subject_box: PixelBox.nullable(),
  /** Source-time second at which subject_box frames the subject (README: t_ref); null = `start`. */
  t_ref: z.number().nonnegative().nullable(),
  /** Output pixels to move the subject right of the crop's center (README: subject_x_offset); 0 = centered. */
  subject_x_offset: z.number().nonnegative(),
});
export type ExtractVerticalClipParams = z.infer<typeof ExtractVerticalClipParams>;

/** extract_vertical_clip: outputs `clip` (9:16 video/mp4) and `subjects` (subjects v1 JSON). */
export const ExtractVerticalClipAssignment = AssignmentBase.extend({
  job_type: z.literal('extract_vertical_clip'),
  source: SourceRef,
  params: ExtractVerticalClipParams,
});
export type ExtractVerticalClipAssignment = z.infer<typeof ExtractVerticalClipAssignment>;

/**
 * What a claim hands an agent: one variant per job type, discriminated by `job_type`. A new job
 * type adds a variant here (and a pipeline on the agent). Agents pull only the work kinds their
 * pipelines serve; one that still cannot read an assignment drops it, and the lease brings the job back.
 */
export const Assignment = z.discriminatedUnion('job_type', [
  TranscribeAssignment,
  ExtractClipAssignment,
  ExtractVerticalClipAssignment,
  FindClipsAssignment,
  SummarizeAssignment,
  EditFromTranscriptAssignment,
]);
export type Assignment = z.infer<typeof Assignment>;

export const ClaimResponse = z.discriminatedUnion('claimed', [
  z.object({ v, claimed: z.literal(true), assignment: Assignment }),
  z.object({
    v,
    claimed: z.literal(false),
    reason: z.string(),
    /**
     * Set when this agent should leave the wake-up for another one (it already failed this job and
     * another agent can take it, or this agent may not take it: draining, blocked for the job type,
     * lacking a routing tag): nak with this delay instead of acking, so the wake-up survives.
     */
    retry_after_ms: z.number().int().positive().optional(),
    /** Present when the refusal is about this agent (drained by an operator): pause pulling. */
    control: AgentControl.optional(),
  }),
]);
export type ClaimResponse = z.infer<typeof ClaimResponse>;

export const Fence = z.object({ v, job_id: Id, attempt_id: Id, agent_id: z.string().min(1) });
export type Fence = z.infer<typeof Fence>;

export const HeartbeatResponse = z.object({ v, lease_expires_at: z.iso.datetime(), cancel: z.boolean() });
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

/** Pipeline stages that are also job statuses; reported through HTTP because they are state. */
export const Stage = z.enum(ACTIVE_STATUSES);
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

/** Output names from the assignment that were written, with their byte sizes. */
export const WrittenOutputs = z.array(z.object({ name: z.string(), bytes: z.number().int().nonnegative() }));

/** The encoder that wrote a cut's video: the job records which one ran. */
export const VideoEncoder = z.enum(['libx264', 'h264_nvenc']);
export type VideoEncoder = z.infer<typeof VideoEncoder>;

/** The Whisper pass of an attempt (transcribe, find_clips, summarize), as the agent timed it. */
export const TranscriptionStats = z.object({
  /** The model that ran (`tiny.en`, `large-v3`, …). */
  model: z.string().min(1).max(100),
  /** Where it ran: `cpu` or `cuda`. */
  device: z.string().min(1).max(32),
  compute_type: z.string().max(32).optional(),
  /** Seconds of media transcribed. */
  media_seconds: z.number().nonnegative(),
  /** Wall-clock seconds of the Whisper child, model load included. */
  wall_seconds: z.number().nonnegative(),
});
export type TranscriptionStats = z.infer<typeof TranscriptionStats>;

/** The H.264 encode of a cut (extract_clip, edit_from_transcript, extract_vertical_clip), as the agent timed it. */
export const EncodeStats = z.object({
  encoder: VideoEncoder,
  /** Video frames written. */
  frames: z.number().int().nonnegative(),
  /** Wall-clock seconds of the encoding ffmpeg run(s). */
  wall_seconds: z.number().nonnegative(),
});
export type EncodeStats = z.infer<typeof EncodeStats>;

/**
 * What an attempt measured about its own work, for the coordinator's metrics only (GET /metrics):
 * never checked, never stored on the job. Optional (added in protocol 1.1; older agents send
 * none); a malformed one is dropped, not refused: metrics never fail a result.
 */
export const AttemptStats = z.object({ transcription: TranscriptionStats.optional(), encode: EncodeStats.optional() });
export type AttemptStats = z.infer<typeof AttemptStats>;

/** Fields every CompleteRequest variant carries besides its own: the fence and the optional stats. */
const CompleteBase = Fence.extend({ stats: AttemptStats.optional().catch(undefined) });

export const TranscribeComplete = CompleteBase.extend({
  job_type: z.literal('transcribe'),
  media: MediaInfo,
  language: z.string(),
  outputs: WrittenOutputs,
});

export const FindClipsComplete = CompleteBase.extend({
  job_type: z.literal('find_clips'),
  media: MediaInfo,
  language: z.string(),
  /** How many candidates the clips document holds (it may be 0, with a note saying why). */
  candidates: z.number().int().nonnegative(),
  outputs: WrittenOutputs,
});

export const SummarizeComplete = CompleteBase.extend({
  job_type: z.literal('summarize'),
  media: MediaInfo,
  language: z.string(),
  outputs: WrittenOutputs,
});

/** A cut's output as the agent probed it after encoding. */
export const RenderedVideo = z.object({
  duration_seconds: z.number().nonnegative(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  fps: z.number().positive(),
  encoder: VideoEncoder,
});
export type RenderedVideo = z.infer<typeof RenderedVideo>;

export const ExtractClipComplete = CompleteBase.extend({
  job_type: z.literal('extract_clip'),
  /** The parent's source as probed. */
  media: MediaInfo,
  video: RenderedVideo,
  outputs: WrittenOutputs,
});

export const EditFromTranscriptComplete = ExtractClipComplete.extend({ job_type: z.literal('edit_from_transcript') });

/** Loudness of the delivered audio, measured (ebur128) after normalization. */
export const LoudnessResult = z.object({
  input_integrated_lufs: z.number(),
  output_integrated_lufs: z.number(),
  output_true_peak_dbtp: z.number(),
});

export const ExtractVerticalClipComplete = CompleteBase.extend({
  job_type: z.literal('extract_vertical_clip'),
  media: MediaInfo,
  video: RenderedVideo,
  /** Null when the source has no audio track (the clip is silent then). */
  loudness: LoudnessResult.nullable(),
  outputs: WrittenOutputs,
});

/** A finished attempt: one variant per job type, like Assignment. */
export const CompleteRequest = z.discriminatedUnion('job_type', [
  TranscribeComplete,
  ExtractClipComplete,
  ExtractVerticalClipComplete,
  FindClipsComplete,
  SummarizeComplete,
  EditFromTranscriptComplete,
]);
export type CompleteRequest = z.infer<typeof CompleteRequest>;

/** Failure classes an agent may report (shared/src/failures.ts decides retry, refund and message). */
export const FailureCode = AgentFailureCode;
export type FailureCode = AgentFailureCode;

/**
 * A failed attempt. `message` is the agent's own account (tool output included, no local path):
 * it goes to the attempt row operators read and to the logs, never to the caller. What the caller
 * reads comes from `detail`, an entry of the closed catalogue in shared/src/failure-details.ts that
 * the coordinator renders; without one (older agents), or with one that does not fit the code, a
 * user-blamed code gets its generic sentence. A detail this coordinator cannot read (a newer
 * agent's, or out of bounds) is dropped, not refused, like `stats`: a failure is never lost to it.
 */
export const FailRequest = Fence.extend({
  code: AgentFailureCode,
  message: z.string().max(2000),
  detail: FailureDetail.optional().catch(undefined),
});
export type FailRequest = z.infer<typeof FailRequest>;

/** Body of a refused fenced call (HTTP 409): the agent must stop the attempt at once. */
export const StaleAttempt = z.object({ v, error: z.string(), stale: z.literal(true) });
export type StaleAttempt = z.infer<typeof StaleAttempt>;

/** Internal HTTP routes on the coordinator (Authorization: Bearer <agent token>). */
export const AGENT_ROUTES = {
  /** Authorization: Bearer <enrollment token> (the only route that takes one). */
  enroll: '/internal/v1/agents/enroll',
  rotate: '/internal/v1/agents/rotate',
  register: '/internal/v1/agents/register',
  natsCredential: '/internal/v1/agents/nats-credential',
  claim: '/internal/v1/claims',
  heartbeat: '/internal/v1/attempts/heartbeat',
  stage: '/internal/v1/attempts/stage',
  complete: '/internal/v1/attempts/complete',
  fail: '/internal/v1/attempts/fail',
} as const;
