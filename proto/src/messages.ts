import { z } from 'zod';
import { FailureDetail } from '@cutroom/shared/failure-details';
import { AgentFailureCode } from '@cutroom/shared/failures';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import { AGENT_JOB_TYPES, type AgentJobType, JOB_CONTRACTS } from '@cutroom/shared/contracts/index';
import { MediaInfo, VideoEncoder } from '@cutroom/shared/contracts/media-facts';
import { WORK_KINDS } from './subjects.ts';
import { variantList } from './variant-list.ts';

/** The parts of the variants declared in shared's contracts, re-exported under their wire names. */
export { CutSegment, ExtractClipParams } from '@cutroom/shared/contracts/extract-clip';
export { ExtractVerticalClipParams } from '@cutroom/shared/contracts/extract-vertical-clip';
export { FindClipsParams } from '@cutroom/shared/contracts/find-clips';
export { LoudnessResult, MediaInfo, RenderedVideo, VideoEncoder } from '@cutroom/shared/contracts/media-facts';
export { TranscribeParams } from '@cutroom/shared/contracts/transcribe';

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
/**
 * Media by URL: the agent fetches `url` itself (shared/src/net/guarded-request.ts: public addresses
 * only, pinned, redirects re-checked; at most `max_bytes`, within `timeout_ms`; http only when
 * `allow_http`), checks it is media, and stores it at `put` (this attempt's own key: the
 * coordinator records it as the job's source when the attempt completes).
 */
export const RemoteSourceRef = z.object({
  url: z.url().max(2048),
  max_bytes: z.number().int().positive(),
  timeout_ms: z.number().int().positive(),
  allow_http: z.boolean(),
  put: OutputTarget,
});
export type RemoteSourceRef = z.infer<typeof RemoteSourceRef>;

/** Where the job's media is: a presigned GET of the stored source, or (`fetch`) a caller's URL the agent fetches first. */
export const SourceRef = z.object({ get_url: z.url(), content_type: z.string(), size: z.number().int().nullable(), fetch: RemoteSourceRef.optional() });
export type SourceRef = z.infer<typeof SourceRef>;

/** Fields every assignment carries, whatever its job type. */
const AssignmentBase = z.object({
  v,
  job_id: Id,
  attempt_id: Id,
  kind: WorkKind,
  /** Renew (heartbeat) at half this. */
  lease_ms: z.number().int().positive(),
  /** Output name → where to PUT it: names from the type's contract (`@cutroom/shared/contracts`). */
  outputs: z.record(z.string(), OutputTarget),
});

/**
 * A job type's Assignment variant, built from its contract (shared/src/contracts/<type>.ts): the
 * common fields, its `job_type`, its source and its contract's params. What each type writes and
 * reports is documented on its contract.
 */
function assignmentOf<T extends AgentJobType, P extends z.ZodObject>(contract: { type: T; params: P }) {
  return AssignmentBase.extend({ job_type: z.literal(contract.type), source: SourceRef, params: contract.params });
}

/** The Assignment variant of each job type's contract (Zod's types, per type: no line per type here). */
type AssignmentVariants = { readonly [T in AgentJobType]: ReturnType<typeof assignmentOf<T, (typeof JOB_CONTRACTS)[T]['params']>> };
// Built at run time from the same function the type names; one cast because TypeScript cannot
// follow a per-key map through Object.fromEntries (proto/src/variants.test.ts checks the result).
const ASSIGNMENT_VARIANTS = Object.fromEntries(
  AGENT_JOB_TYPES.map((t) => [t, assignmentOf<AgentJobType, z.ZodObject>(JOB_CONTRACTS[t])]),
) as unknown as AssignmentVariants;

/** The variants the agent's pipelines name. */
export const TranscribeAssignment = ASSIGNMENT_VARIANTS.transcribe;
export type TranscribeAssignment = z.infer<typeof TranscribeAssignment>;
export const FindClipsAssignment = ASSIGNMENT_VARIANTS.find_clips;
export type FindClipsAssignment = z.infer<typeof FindClipsAssignment>;
export const SummarizeAssignment = ASSIGNMENT_VARIANTS.summarize;
export type SummarizeAssignment = z.infer<typeof SummarizeAssignment>;
export const ExtractClipAssignment = ASSIGNMENT_VARIANTS.extract_clip;
export type ExtractClipAssignment = z.infer<typeof ExtractClipAssignment>;
export const EditFromTranscriptAssignment = ASSIGNMENT_VARIANTS.edit_from_transcript;
export type EditFromTranscriptAssignment = z.infer<typeof EditFromTranscriptAssignment>;
export const ExtractVerticalClipAssignment = ASSIGNMENT_VARIANTS.extract_vertical_clip;
export type ExtractVerticalClipAssignment = z.infer<typeof ExtractVerticalClipAssignment>;

/**
 * What a claim hands an agent: one variant per job type contract, discriminated by `job_type`.
 * Agents pull only the work kinds their pipelines serve; one that still cannot read an assignment
 * drops it, and the lease brings the job back.
 */
export const Assignment = z.discriminatedUnion('job_type', variantList(ASSIGNMENT_VARIANTS));
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

/**
 * A stage change. `media` (the probe) comes with `transcribing`: the coordinator checks it
 * against what the caller declared and paid for (a video uploaded as audio is refused).
 */
export const StageRequest = Fence.extend({ stage: Stage, media: MediaInfo.optional() });
export type StageRequest = z.infer<typeof StageRequest>;

/** Output names from the assignment that were written, with their byte sizes. */
export const WrittenOutputs = z.array(z.object({ name: z.string(), bytes: z.number().int().nonnegative() }));

/** The Whisper pass of an attempt (transcribe, find_clips, summarize), as the agent timed it. */
export const TranscriptionStats = z.object({
  /** The model that ran (`tiny.en`, `large-v3`, …). */
  model: z.string().min(1).max(100),
  /** Where it ran: `cpu` or `cuda`. */
  device: z.string().min(1).max(32),
  compute_type: z.string().max(32).optional(),
  /** CTranslate2 threads of a CPU run (WHISPER_CPU_THREADS); absent on CUDA or at CTranslate2's default. */
  cpu_threads: z.number().int().positive().max(64).optional(),
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

/**
 * A job type's CompleteRequest variant, built from its contract: the fence and stats, its
 * `job_type`, the fields its contract's completion names, and the outputs written.
 */
function completeOf<T extends AgentJobType, S extends z.ZodRawShape>(contract: { type: T; completion: S }) {
  // Extended in steps (not spread into one shape): the fields keep the wire's order.
  return CompleteBase.extend({ job_type: z.literal(contract.type) })
    .extend(contract.completion)
    .extend({ outputs: WrittenOutputs });
}

/** The CompleteRequest variant of each job type's contract, like ASSIGNMENT_VARIANTS. */
type CompleteVariants = { readonly [T in AgentJobType]: ReturnType<typeof completeOf<T, (typeof JOB_CONTRACTS)[T]['completion']>> };
const COMPLETE_VARIANTS = Object.fromEntries(
  AGENT_JOB_TYPES.map((t) => [t, completeOf<AgentJobType, z.ZodRawShape>(JOB_CONTRACTS[t])]),
) as unknown as CompleteVariants;

export const TranscribeComplete = COMPLETE_VARIANTS.transcribe;
export const FindClipsComplete = COMPLETE_VARIANTS.find_clips;
export const SummarizeComplete = COMPLETE_VARIANTS.summarize;
export const ExtractClipComplete = COMPLETE_VARIANTS.extract_clip;
export const EditFromTranscriptComplete = COMPLETE_VARIANTS.edit_from_transcript;
export const ExtractVerticalClipComplete = COMPLETE_VARIANTS.extract_vertical_clip;

/** A finished attempt: one variant per job type contract, like Assignment. */
export const CompleteRequest = z.discriminatedUnion('job_type', variantList(COMPLETE_VARIANTS));
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
