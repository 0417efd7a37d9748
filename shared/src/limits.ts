/**
 * Limits from the spec's Limits table, plus the ones it leaves to us (documented in the README).
 * Retention per job type is in JOB_TYPES (job-types.ts).
 */
export const LIMITS = {
  queryMaxChars: 500,
  titleMaxChars: 200,
  segmentLabelMaxChars: 200,
  subjectIdMaxChars: 64,
  echoMaxChars: 200,
  filenameMaxChars: 255,
  segmentsMin: 1,
  segmentsMax: 50,
  extractClipMaxTotalSeconds: 30 * 60,
  clipsPerBatchMax: 5,
  editTextMaxBytes: 256 * 1024,
  /** Not in the spec: a published video's description (the host's own limit is 5,000 characters). */
  publishDescriptionMaxChars: 5000,
  /** Not in the spec: the largest upload we accept, 2 GiB (about 4 h of 1080p at 1 Mbit/s). */
  uploadMaxBytes: 2 * 1024 ** 3,
  /** Not in the spec: longest media we transcribe, 4 h. */
  mediaMaxSeconds: 4 * 3600,
} as const;
