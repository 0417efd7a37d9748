/**
 * Kinds of work an agent can announce it serves; one JetStream consumer per kind (proto's
 * subjects.ts names them), each with a single filter subject (nats-server 2.9 refuses several
 * filters on one consumer). A job type's contract names its kind (./index.ts):
 * `transcribe`: transcribe (ffmpeg, faster-whisper and its model).
 * `cut`: extract_clip, edit_from_transcript and extract_vertical_clip (ffmpeg with an H.264 encoder and aac).
 * `understand`: find_clips and summarize (Whisper, then the sentence-embedding model and, where configured, a text model).
 * Only ever add members.
 */
export const WORK_KINDS = ['transcribe', 'cut', 'understand'] as const;
export type WorkKindName = (typeof WORK_KINDS)[number];
