/** Limits from the spec's Limits table, plus the ones it leaves to us (documented in the README). */
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
  /** Not in the spec: the largest upload we accept, 2 GiB (about 4 h of 1080p at 1 Mbit/s). */
  uploadMaxBytes: 2 * 1024 ** 3,
  /** Not in the spec: longest media we transcribe, 4 h. */
  mediaMaxSeconds: 4 * 3600,
} as const;

/** Source/output retention after completion, per job type, in hours (spec: Limits). */
export const RETENTION_HOURS = {
  find_clips: 72,
  transcribe: 24,
  summarize: 24,
  extract_clip: 24,
  extract_vertical_clip: 24,
  clips_vertical: 24,
  publish_video: 24,
} as const;
