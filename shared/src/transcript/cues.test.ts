import { describe, expect, it } from 'vitest';
import { MIN_CUE_MS, cleanCueText, normalizeCues } from './cues.ts';

const s = (start: number, end: number, text: string) => ({ start, end, text });

describe('cleanCueText', () => {
  it('trims and collapses newlines and whitespace runs', () => {
    expect(cleanCueText(' Hello')).toBe('Hello');
    expect(cleanCueText('one\ntwo\r\n\n three\tfour  ')).toBe('one two three four');
    expect(cleanCueText(' \n ')).toBe('');
  });
});

describe('normalizeCues', () => {
  it('drops empty segments and keeps valid timing as is', () => {
    expect(normalizeCues([s(0, 1, ' Hi'), s(1, 2, '   '), s(2, 3, 'there')])).toEqual([
      { startMs: 0, endMs: 1000, text: 'Hi' },
      { startMs: 2000, endMs: 3000, text: 'there' },
    ]);
  });

  it('gives zero-length segments a minimum duration capped at the next start', () => {
    expect(normalizeCues([s(1, 1, 'a'), s(5, 4, 'b')])).toEqual([
      { startMs: 1000, endMs: 1000 + MIN_CUE_MS, text: 'a' },
      { startMs: 5000, endMs: 5000 + MIN_CUE_MS, text: 'b' },
    ]);
    expect(normalizeCues([s(1, 1, 'a'), s(1.2, 2, 'b')])).toEqual([
      { startMs: 1000, endMs: 1200, text: 'a' },
      { startMs: 1200, endMs: 2000, text: 'b' },
    ]);
  });

  it('keeps end > start even when the next cue starts at the same time', () => {
    const cues = normalizeCues([s(1, 1, 'a'), s(1, 1, 'b'), s(1, 3, 'c')]);
    expect(cues.map((c) => [c.startMs, c.endMs])).toEqual([
      [1000, 1001],
      [1001, 1002],
      [1002, 3000],
    ]);
  });

  it('pushes overlapping cues to the previous end, and sorts by start', () => {
    const cues = normalizeCues([s(3, 6, 'c'), s(0, 2.5, 'a'), s(2, 4, 'b'), s(3.5, 3.9, 'd')]);
    expect(cues.map((c) => [c.text, c.startMs, c.endMs])).toEqual([
      ['a', 0, 2500],
      ['b', 2500, 4000],
      ['c', 4000, 6000],
      // Wholly inside the previous cue: moved after it with the minimum duration.
      ['d', 6000, 6000 + MIN_CUE_MS],
    ]);
    for (let i = 0; i < cues.length; i++) {
      expect(cues[i]!.endMs).toBeGreaterThan(cues[i]!.startMs);
      if (i > 0) expect(cues[i]!.startMs).toBeGreaterThanOrEqual(cues[i - 1]!.endMs);
    }
  });
});
