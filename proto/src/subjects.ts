/**
 * NATS names, versioned in the subject so a v2 agent and a v1 agent never read each other's
 * messages. JetStream carries wake-ups only: Postgres decides who runs what.
 */
export const PROTOCOL_VERSION = 1 as const;

/** Work-queue stream holding one wake-up per queued job attempt. */
export const WORK_STREAM = 'CUTROOM_WORK_V1';
export const WORK_SUBJECT_PREFIX = 'cutroom.work.v1';

/**
 * Kinds of work an agent can announce it serves; one JetStream consumer per kind, each with a
 * single filter subject (nats-server 2.9 refuses several filters on one consumer).
 * `cut`: extract_clip and extract_vertical_clip (ffmpeg with an H.264 encoder, the face detector).
 * `understand`: find_clips (Whisper, then the sentence-embedding model and, where configured, a text model).
 * Only ever add members.
 */
export const WORK_KINDS = ['transcribe', 'cut', 'understand'] as const;
type WorkKindName = (typeof WORK_KINDS)[number];

export const workSubject = (kind: WorkKindName): string => `${WORK_SUBJECT_PREFIX}.${kind}`;
export const workConsumerName = (kind: WorkKindName): string => `work-${kind}-v1`;

/** Core NATS (not JetStream): progress is lossy by design, newest wins. */
export const PROGRESS_SUBJECT_PREFIX = 'cutroom.progress.v1';
export const progressSubject = (jobId: string): string => `${PROGRESS_SUBJECT_PREFIX}.${jobId}`;
export const PROGRESS_SUBJECT_WILDCARD = `${PROGRESS_SUBJECT_PREFIX}.*`;

/** Coordinator → agent: stop this attempt now (job cancelled, deleted or lease lost). */
export const CONTROL_SUBJECT_PREFIX = 'cutroom.control.v1';
export const cancelSubject = (attemptId: string): string => `${CONTROL_SUBJECT_PREFIX}.cancel.${attemptId}`;
