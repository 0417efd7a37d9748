import { describe, expect, it } from 'vitest';
import { CUE_LAYOUT, joinWords, readableCues, wrapCueText } from './readable-cues.ts';
import { parseSrt, toSrt } from './srt.ts';
import { seg, transcript } from './test-fixtures.ts';
import type { TranscriptSegmentV2, TranscriptV1 } from './transcript-v2.ts';

/** A segment whose words are spoken one after the other, `perWord` seconds each, with `gaps` (index → seconds of silence before that word). */
function spoken(id: number, start: number, text: string, perWord = 0.3, gaps: Record<number, number> = {}): TranscriptSegmentV2 {
  let t = start;
  const words = text.split(' ').map((word, i) => {
    t += gaps[i] ?? 0;
    const w = { start: t, end: t + perWord * 0.9, word, probability: 0.9 };
    t += perWord;
    return w;
  });
  return seg(id, start, t, ` ${text}`, words);
}

const LONG =
  'When the first settlers came to the valley they found the river full of salmon, and for twenty years they fished it every autumn. ' +
  'Then the mill was built upstream, the water turned brown, and by 1890 the salmon were gone.';

describe('readableCues', () => {
  it('lays a long Whisper segment out as cues of at most two lines of 42 characters, each 1-7 s, breaking at sentence and clause ends', () => {
    const cues = readableCues(transcript([spoken(0, 0, LONG, 0.3)], 30));
    expect(cues.length).toBeGreaterThan(3);
    for (const c of cues) {
      const lines = c.text.split('\n');
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(42);
      expect(c.endMs - c.startMs).toBeGreaterThanOrEqual(1000);
      expect(c.endMs - c.startMs).toBeLessThanOrEqual(7000);
    }
    // Nothing lost, nothing added, in order.
    expect(cues.map((c) => c.text.replace('\n', ' ')).join(' ')).toBe(LONG);
    // The sentence end closes a cue.
    expect(cues.some((c) => c.text.endsWith('every autumn.'))).toBe(true);
    // Cues never overlap.
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.startMs).toBeGreaterThanOrEqual(cues[i - 1]!.endMs);
  });

  it('starts each cue at its first word and ends it at its last: no caption over a silence', () => {
    // Two phrases with 2.5 s of silence between them, in one Whisper segment.
    const cues = readableCues(transcript([spoken(0, 10, 'We waited for the tide. Then it came in fast.', 0.4, { 5: 2.5 })]));
    expect(cues.map((c) => c.text)).toEqual(['We waited for the tide.', 'Then it came in fast.']);
    expect(cues[0]!.startMs).toBe(10_000);
    expect(cues[0]!.endMs).toBe(11_960); // the fifth word's end
    expect(cues[1]!.startMs).toBe(14_500); // after the silence
  });

  it('holds a short cue for a second when the next leaves room, never into it', () => {
    const cues = readableCues(transcript([spoken(0, 0, 'Yes.', 0.2), spoken(1, 0.5, 'No, not that one.', 0.3), spoken(2, 5, 'Fine.', 0.2)]));
    expect(cues[0]).toMatchObject({ text: 'Yes.', startMs: 0, endMs: 500 }); // the next starts at 0.5 s
    expect(cues.at(-1)).toMatchObject({ text: 'Fine.', startMs: 5000, endMs: 6000 });
    // Nor past the end of the media: a clip's last word ends 0.1 s before the clip does.
    expect(readableCues(transcript([spoken(0, 5.5, 'Bye.', 0.4)], 5.96)).at(-1)).toMatchObject({ startMs: 5500, endMs: 5960 });
  });

  it('joins the pieces Whisper splits off a word: "Two-man-eat", "it\'s"', () => {
    const words = [
      { start: 0, end: 0.3, word: 'Two', probability: 0.9 },
      { start: 0.3, end: 0.5, word: '-man', probability: 0.8 },
      { start: 0.5, end: 0.7, word: '-eat', probability: 0.8 },
      { start: 0.8, end: 1.0, word: 'it', probability: 0.9 },
      { start: 1.0, end: 1.1, word: "'s", probability: 0.9 },
      { start: 1.2, end: 1.6, word: 'gone', probability: 0.9 },
      { start: 1.6, end: 1.7, word: '.', probability: 0.9 },
    ];
    expect(readableCues(transcript([seg(0, 0, 1.7, " Two -man -eat it 's gone .", words)])).map((c) => c.text)).toEqual(["Two-man-eat it's gone."]);
    expect(joinWords(['well', '-known', ',', 'isn', "'t", 'it', '?'])).toBe("well-known, isn't it?");
  });

  it('splits a v1 segment (no words) at word boundaries, sharing its time by characters', () => {
    const v1: TranscriptV1 = { version: 1, language: 'en', duration: 20, segments: [{ id: 0, start: 0, end: 16, text: LONG }] };
    const cues = readableCues(v1);
    expect(cues.length).toBeGreaterThan(2);
    expect(cues[0]!.startMs).toBe(0);
    expect(cues.at(-1)!.endMs).toBe(16_000);
    for (const c of cues) for (const l of c.text.split('\n')) expect(l.length).toBeLessThanOrEqual(42);
    expect(cues.map((c) => c.text.replace('\n', ' ')).join(' ')).toBe(LONG);
  });

  it('keeps a short segment as it was', () => {
    expect(readableCues(transcript([seg(0, 1, 3, ' Hello there.')]))).toEqual([{ startMs: 1000, endMs: 3000, text: 'Hello there.' }]);
  });
});

describe('wrapCueText', () => {
  it('leaves a line of 42 characters or fewer alone, and breaks a longer one where the two lines are most even', () => {
    expect(wrapCueText('a'.repeat(42))).toBe('a'.repeat(42));
    expect(wrapCueText('the quick brown fox jumps over the lazy dog and runs')).toBe('the quick brown fox jumps\nover the lazy dog and runs');
  });

  it('prefers a break after a comma when the lines stay close', () => {
    expect(wrapCueText('We fished the river, and the salmon were many')).toBe('We fished the river,\nand the salmon were many');
  });

  it('gives a word longer than a line a line of its own', () => {
    const url = `https://example.com/${'x'.repeat(40)}`;
    expect(wrapCueText(`see ${url}`).split('\n')).toEqual(['see', url]);
  });

  it('follows the layout it is given', () => {
    expect(CUE_LAYOUT).toMatchObject({ lineChars: 42, lines: 2, minMs: 1000, maxMs: 7000 });
    expect(wrapCueText('one two three four', { lineChars: 10, lines: 2 })).toBe('one two\nthree four');
  });
});

describe('SRT from readable cues', () => {
  it('writes two-line cues that SRT readers parse back', () => {
    const srt = toSrt(transcript([spoken(0, 0, LONG, 0.3)], 30));
    const parsed = parseSrt(srt);
    expect(parsed.some((c) => c.text.includes('\n'))).toBe(true);
    expect(parsed.every((c) => c.text.split('\n').every((l) => l.length <= 42))).toBe(true);
  });
});
