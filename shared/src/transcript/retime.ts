import type { TranscriptSegmentV2, TranscriptV2, TranscriptWord } from './transcript-v2.ts';

/** A range of the source the cut keeps, in source seconds (end after start). */
export interface SourceRange {
  start: number;
  end: number;
}

/** Languages written without spaces between words: their words are joined as they are. */
const UNSPACED_LANGUAGES = new Set(['zh', 'ja', 'th', 'lo', 'my', 'km', 'bo', 'yue']);

/** Times in the output are rounded to the millisecond, as Whisper's are. */
const toMs = (t: number) => Math.round(t * 1000) / 1000;

/**
 * Maps a parent's transcript (source time) onto a cut made of `ranges` played one after another:
 * range i starts in the output at the summed durations of ranges 0…i-1. Pass the ranges the cut
 * really used (its frame-aligned times), so transcript and video agree.
 *
 * Boundary rule: a word belongs to a range when its midpoint ((start + end) / 2) lies inside it,
 * start included, end excluded (so at least half of the word is in the range; a word split by two
 * adjacent ranges goes to exactly one). A kept word's times are clamped to its range; every
 * other word is dropped. A Whisper segment with no words follows the same rule as one word.
 *
 * Segments: each Whisper segment becomes one output segment per range that keeps at least one of
 * its words, spanning its own times clamped to that range (widened to its kept words). Its text
 * is the original when every word was kept, else its kept words joined by spaces (no separator
 * for languages written without spaces). Ranges may come in any order and repeat or overlap:
 * the output follows the ranges' order, and a word in two ranges appears twice. Ids are
 * renumbered from 0 and `duration` is the cut's total duration. Every time is rounded to the
 * millisecond, as Whisper's are. A cut with no speech in it gives a transcript with no segments.
 */
export function retimeTranscript(t: TranscriptV2, ranges: readonly SourceRange[]): TranscriptV2 {
  const joiner = UNSPACED_LANGUAGES.has(t.language) ? '' : ' ';
  const duration = toMs(ranges.reduce((sum, r) => sum + Math.max(0, r.end - r.start), 0));
  // Rounding must not push a time past the end of the cut.
  const place = (x: number) => Math.min(toMs(x), duration);
  const segments: TranscriptSegmentV2[] = [];
  let offset = 0;
  for (const range of ranges) {
    const shift = offset - range.start;
    const clamp = (x: number) => place(Math.min(Math.max(x, range.start), range.end) + shift);
    const isInside = (start: number, end: number) => {
      const mid = (start + end) / 2;
      return mid >= range.start && mid < range.end;
    };
    for (const seg of t.segments) {
      // Words are judged on their own times, not their segment's: Whisper's can stray past it.
      const kept = seg.words.filter((w) => isInside(w.start, w.end));
      if (seg.words.length > 0 ? kept.length === 0 : !isInside(seg.start, seg.end)) continue;
      const words: TranscriptWord[] = kept.map((w) => ({ ...w, start: clamp(w.start), end: clamp(w.end) }));
      const start = Math.min(clamp(seg.start), ...words.map((w) => w.start));
      const end = Math.max(clamp(seg.end), ...words.map((w) => w.end));
      const text = kept.length === seg.words.length ? seg.text : kept.map((w) => w.word).join(joiner);
      segments.push({ id: segments.length, start, end, text, words });
    }
    offset += Math.max(0, range.end - range.start);
  }
  return { version: 2, language: t.language, duration, segments };
}
