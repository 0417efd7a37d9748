import { describe, expect, it } from 'vitest';
import type { Timed } from './candidates.ts';
import { chooseLengths, lengthNotes, shortestClipFor } from './clip-lengths.ts';

/** Sentences of 9.6 s with 0.4 s gaps: sentence i spans [10 i, 10 i + 9.6]. */
const timeline = (n: number): Timed[] => Array.from({ length: n }, (_, i) => ({ start: 10 * i, end: 10 * i + 9.6 }));
/** Topics of the given sentence counts, in order. */
function topicsOf(sizes: readonly number[]) {
  let first = 0;
  return sizes.map((size) => {
    const t = { first, last: first + size - 1 };
    first += size;
    return t;
  });
}

describe('clip lengths', () => {
  it('takes a target as asked, whatever the topics', () => {
    const s = timeline(30);
    expect(chooseLengths('short', s, topicsOf([30]))).toEqual({ minSeconds: 15, maxSeconds: 60, idealSeconds: 30, requested: 'short', isFallback: false });
    expect(chooseLengths('long', s, topicsOf([7, 7, 16]))).toMatchObject({ minSeconds: 120, maxSeconds: 300, isFallback: false });
  });

  it('keeps the default 2-5 minutes while one topic lasts 2 minutes, and fits the topics when none does', () => {
    const s = timeline(30);
    expect(chooseLengths(null, s, topicsOf([7, 7, 16]))).toMatchObject({ minSeconds: 120, maxSeconds: 300, requested: null, isFallback: false });
    // 12 sentences: 119.6 s, a hair under 2 minutes.
    expect(chooseLengths(null, s, topicsOf([12, 12, 6]))).toMatchObject({ minSeconds: 15, maxSeconds: 300, requested: null, isFallback: true });
    expect(chooseLengths(null, s, [])).toMatchObject({ minSeconds: 15, isFallback: true });
    expect([shortestClipFor(null), shortestClipFor('short'), shortestClipFor('medium'), shortestClipFor('long')]).toEqual([15, 15, 60, 120]);
  });

  it('names the topics too short for the lengths, with a target that fits them', () => {
    const s = timeline(40);
    // Topics of 9.6 s, 49.6 s and 329.6 s under short: the first is too short even for it.
    const short = chooseLengths('short', s, topicsOf([1, 5, 34]));
    expect(lengthNotes(short, s, topicsOf([1, 5, 34]))).toEqual([
      "1 of 3 topics is shorter than 15 s, the short target's shortest clip: 0:00-0:09 (10 s); no candidate lies in it alone",
    ]);
    // Under long, the first two; no target fits a 10 s topic, so none is offered.
    const long = chooseLengths('long', s, topicsOf([1, 5, 34]));
    expect(lengthNotes(long, s, topicsOf([1, 5, 34]))).toEqual([
      "2 of 3 topics are shorter than 120 s, the long target's shortest clip: 0:00-0:09 (10 s), 0:10-0:59 (50 s); no candidate lies in them alone",
    ]);
    expect(lengthNotes(long, s, topicsOf([7, 33]))).toEqual([
      "1 of 2 topics is shorter than 120 s, the long target's shortest clip: 0:00-1:09 (70 s); no candidate lies in it alone (target medium, 60-180 s, fits it)",
    ]);
    expect(lengthNotes(chooseLengths('medium', s, topicsOf([4, 36])), s, topicsOf([4, 36]))).toEqual([
      "1 of 2 topics is shorter than 60 s, the medium target's shortest clip: 0:00-0:39 (40 s); no candidate lies in it alone (target short, 15-60 s, fits it)",
    ]);
    expect(lengthNotes(short, s, topicsOf([10, 30]))).toEqual([]);
  });

  it('says when the default gave way to the topics', () => {
    const s = timeline(21);
    const topics = topicsOf([7, 7, 7]);
    expect(lengthNotes(chooseLengths(null, s, topics), s, topics)).toEqual([
      "no topic lasts 120 s, the shortest default clip: the candidates fit the recording's own topics (15-300 s) instead of 2-5 minutes",
    ]);
    // The default with a long topic and a short one: the short one is named.
    const mixed = topicsOf([14, 7]);
    expect(lengthNotes(chooseLengths(null, s, mixed), s, mixed)).toEqual([
      "1 of 2 topics is shorter than 120 s, the default's shortest clip: 2:20-3:29 (70 s); no candidate lies in it alone (target medium, 60-180 s, fits it)",
    ]);
  });
});
