import type { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

/**
 * v2 -> v1: drops the per-word timestamps only. Text is kept verbatim (no trimming): the JSON
 * formats are data, not display, so they stay lossless apart from `words`.
 */
export function toJsonV1(t: TranscriptV2): TranscriptV1 {
  return {
    version: 1,
    language: t.language,
    duration: t.duration,
    // Fields picked explicitly so that `words` (or anything extra) never leaks through.
    segments: t.segments.map(({ id, start, end, text }) => ({ id, start, end, text })),
  };
}
