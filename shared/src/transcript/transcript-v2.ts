import { z } from 'zod';

/**
 * Transcript v2 (the `words` format): segments plus per-word timestamps. This zod schema is the
 * single definition: the render-agent validates what Whisper produced against it, the
 * coordinator validates what an agent uploaded, and the public JSON Schema served at
 * /.well-known/cutroom-transcript-v2.schema.json is generated from it. Times are seconds.
 */
export const TranscriptWord = z.object({
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  /** The word as spoken, without surrounding whitespace. */
  word: z.string(),
  /** Whisper's confidence, 0..1. */
  probability: z.number().min(0).max(1),
});
export type TranscriptWord = z.infer<typeof TranscriptWord>;

export const TranscriptSegmentV2 = z.object({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  words: z.array(TranscriptWord),
});
export type TranscriptSegmentV2 = z.infer<typeof TranscriptSegmentV2>;

export const TranscriptV2 = z.object({
  version: z.literal(2),
  /** ISO 639-1 language code detected or forced. */
  language: z.string(),
  /** Duration of the transcribed media in seconds. */
  duration: z.number().nonnegative(),
  segments: z.array(TranscriptSegmentV2),
});
export type TranscriptV2 = z.infer<typeof TranscriptV2>;

/** Transcript v1 (the `json` format): segments only. */
export const TranscriptSegmentV1 = TranscriptSegmentV2.omit({ words: true });
export const TranscriptV1 = z.object({
  version: z.literal(1),
  language: z.string(),
  duration: z.number().nonnegative(),
  segments: z.array(TranscriptSegmentV1),
});
export type TranscriptV1 = z.infer<typeof TranscriptV1>;
