import type { TranscriptSegmentV2, TranscriptV2 } from './transcript-v2.ts';

/** Test helper: a segment with no words unless given. */
export function seg(id: number, start: number, end: number, text: string, words: TranscriptSegmentV2['words'] = []): TranscriptSegmentV2 {
  return { id, start, end, text, words };
}

/** Test helper: a v2 transcript around the given segments. */
export function transcript(segments: TranscriptSegmentV2[], duration = 10): TranscriptV2 {
  return { version: 2, language: 'en', duration, segments };
}
