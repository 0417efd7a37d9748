import { describe, expect, it } from 'vitest';
import { retimeTranscript } from './retime.ts';
import { seg, transcript } from './test-fixtures.ts';
import { TranscriptV2 } from './transcript-v2.ts';

const w = (word: string, start: number, end: number) => ({ word, start, end, probability: 0.9 });

// Two Whisper segments: "one two three" over 0–3 s, "four five" over 4–6 s.
const source = transcript(
  [seg(0, 0, 3, 'One two three.', [w('One', 0, 1), w('two', 1, 2), w('three.', 2, 3)]), seg(1, 4, 6, 'Four five.', [w('Four', 4, 5), w('five.', 5, 6)])],
  60,
);

describe('retimeTranscript', () => {
  it('moves a kept range to the start of the cut and keeps the original text when nothing is dropped', () => {
    const out = retimeTranscript(source, [{ start: 4, end: 6 }]);
    expect(out).toEqual({
      version: 2,
      language: 'en',
      duration: 2,
      segments: [{ id: 0, start: 0, end: 2, text: 'Four five.', words: [w('Four', 0, 1), w('five.', 1, 2)] }],
    });
    expect(TranscriptV2.safeParse(out).success).toBe(true);
  });

  it('keeps a word cut by a boundary when its midpoint is inside, clamped; drops it otherwise', () => {
    // 0.4–2.6: "One" (mid 0.5) is in, clamped to start at 0.4; "three." (mid 2.5) is out.
    const out = retimeTranscript(source, [{ start: 0.4, end: 2.5 }]);
    expect(out.segments).toHaveLength(1);
    const [s] = out.segments;
    expect(s!.words).toEqual([w('One', 0, 0.6), w('two', 0.6, 1.6)]);
    expect(s!.text).toBe('One two');
    expect(s!.start).toBe(0);
    expect(s!.end).toBe(2.1);
  });

  it('gives a word on the seam of two adjacent ranges to exactly one of them', () => {
    // "two" (1–2) has its midpoint at 1.5, the seam.
    const out = retimeTranscript(source, [
      { start: 0, end: 1.5 },
      { start: 1.5, end: 3 },
    ]);
    const words = out.segments.flatMap((s) => s.words.map((x) => x.word));
    expect(words).toEqual(['One', 'two', 'three.']);
    expect(out.segments.map((s) => s.text)).toEqual(['One', 'two three.']);
    expect(out.segments[1]!.words[0]).toEqual(w('two', 1.5, 2));
  });

  it('splits a Whisper segment into one output segment per piece, following the ranges order', () => {
    const out = retimeTranscript(source, [
      { start: 4, end: 5 },
      { start: 2, end: 3 },
      { start: 0, end: 1 },
    ]);
    expect(out.segments.map((s) => [s.id, s.start, s.end, s.text])).toEqual([
      [0, 0, 1, 'Four'],
      [1, 1, 2, 'three.'],
      [2, 2, 3, 'One'],
    ]);
    expect(out.duration).toBe(3);
  });

  it('repeats words for a repeated or overlapping range', () => {
    const out = retimeTranscript(source, [
      { start: 0, end: 2 },
      { start: 1, end: 3 },
      { start: 0, end: 2 },
    ]);
    expect(out.segments.map((s) => s.text)).toEqual(['One two', 'two three.', 'One two']);
    expect(out.segments.map((s) => s.start)).toEqual([0, 2, 4]);
    expect(out.segments[2]!.words).toEqual([w('One', 4, 5), w('two', 5, 6)]);
    expect(out.duration).toBe(6);
  });

  it('gives no segments for a cut without speech, with the cut duration', () => {
    const out = retimeTranscript(source, [
      { start: 3.2, end: 3.9 },
      { start: 10, end: 20 },
    ]);
    expect(out.segments).toEqual([]);
    expect(out.duration).toBe(10.7);
    expect(TranscriptV2.safeParse(out).success).toBe(true);
  });

  it('judges a segment without words as one word', () => {
    const t = transcript([seg(0, 1, 3, '[music]')]);
    expect(retimeTranscript(t, [{ start: 1.5, end: 10 }]).segments).toEqual([{ id: 0, start: 0, end: 1.5, text: '[music]', words: [] }]);
    expect(retimeTranscript(t, [{ start: 2.5, end: 10 }]).segments).toEqual([]);
  });

  it('joins kept words without spaces for languages written without them', () => {
    const ja = { ...transcript([seg(0, 0, 3, 'こんにちは世界です', [w('こんにちは', 0, 1), w('世界', 1, 2), w('です', 2, 3)])]), language: 'ja' };
    expect(retimeTranscript(ja, [{ start: 0.9, end: 2.6 }]).segments[0]!.text).toBe('世界です');
  });

  it('keeps every time inside the cut on frame-aligned (irrational) ranges', () => {
    const fps = 30000 / 1001;
    const ranges = [
      { start: 30 / fps, end: 74 / fps },
      { start: 120 / fps, end: 181 / fps },
    ];
    const out = retimeTranscript(source, ranges);
    for (const s of out.segments) {
      for (const x of [s.start, s.end, ...s.words.flatMap((y) => [y.start, y.end])]) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(out.duration);
        expect(Math.round(x * 1000) / 1000).toBe(x);
      }
    }
    expect(out.duration).toBe(3.504); // 105 frames at 29.97 fps = 3.5035 s
  });
});
