import { describe, expect, it } from 'vitest';
import type { Segmentation } from './segment.ts';
import { seededRandom } from './test-fixtures.ts';
import { joinCoherentTopics, refineBoundaries } from './topic-edges.ts';

/** Sentences of topic k point along axis k, with some noise on every axis. */
function embeddingsOf(sizes: readonly number[], seed = 1): Float32Array[] {
  const rng = seededRandom(seed);
  return sizes.flatMap((size, k) =>
    Array.from({ length: size }, () => {
      const v = Float32Array.from({ length: sizes.length }, (_, d) => (d === k ? 1 : 0) + 0.3 * rng());
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    }),
  );
}

/** A segmentation whose topics start at `starts` (depths flat: refinement does not read them). */
function segAt(starts: readonly number[], n: number): Segmentation {
  const topics = starts.map((first, i) => ({ first, last: (starts[i + 1] ?? n) - 1 }));
  const depth = Array(n).fill(0);
  return { window: 4, similarity: Array(n).fill(0), depth, threshold: 0.1, boundaries: starts.slice(1).map((sentence) => ({ sentence, depth: 0 })), topics };
}

describe('refineBoundaries', () => {
  it('moves a boundary found a sentence or two off onto the sentence where the topic changes', () => {
    const e = embeddingsOf([14, 14, 12]);
    for (const [found, moved] of [
      [
        [0, 13, 28],
        [0, 14, 28],
      ],
      [
        [0, 15, 27],
        [0, 14, 28],
      ],
      [
        [0, 12, 30],
        [0, 14, 28],
      ],
      [
        [0, 14, 28],
        [0, 14, 28],
      ],
    ]) {
      const refined = refineBoundaries(e, segAt(found!, e.length));
      expect(
        refined.topics.map((t) => t.first),
        JSON.stringify(found),
      ).toEqual(moved);
      expect(refined.boundaries.map((b) => b.sentence)).toEqual(moved!.slice(1));
      expect(refined.topics.at(-1)!.last).toBe(e.length - 1);
    }
  });

  it('moves a boundary at most `radius` sentences, and leaves one where both sides look alike', () => {
    const e = embeddingsOf([14, 14]);
    expect(refineBoundaries(e, segAt([0, 9], 28)).topics.map((t) => t.first)).toEqual([0, 11]);
    expect(refineBoundaries(e, segAt([0, 9], 28), { radius: 5 }).topics.map((t) => t.first)).toEqual([0, 14]);
    const same = Array.from({ length: 28 }, () => Float32Array.from([1, 0]));
    expect(refineBoundaries(same, segAt([0, 12], 28)).topics.map((t) => t.first)).toEqual([0, 12]);
  });

  it('keeps every topic at least one sentence long, and a single topic as it is', () => {
    const e = embeddingsOf([1, 3, 10]);
    const refined = refineBoundaries(e, segAt([0, 1, 4], e.length));
    for (const t of refined.topics) expect(t.last).toBeGreaterThanOrEqual(t.first);
    const one = segAt([0], 10);
    expect(refineBoundaries(embeddingsOf([10]), one).topics).toEqual(one.topics);
  });
});

describe('joinCoherentTopics', () => {
  it('drops the boundaries between neighbours on one subject and keeps the changes of subject', () => {
    // Topics 0-1 on one subject (axis 0), 2 on another, 3-4 back on the first: only the changes remain.
    const axis = [0, 0, 1, 0, 0];
    const e = axis.flatMap((d) => Array.from({ length: 6 }, () => Float32Array.from([0, 1].map((k) => (k === d ? 1 : 0)))));
    const joined = joinCoherentTopics(e, segAt([0, 6, 12, 18, 24], 30));
    expect(joined.topics).toEqual([
      { first: 0, last: 11 },
      { first: 12, last: 17 },
      { first: 18, last: 29 },
    ]);
    expect(joined.boundaries.map((b) => b.sentence)).toEqual([12, 18]);
    // Distinct subjects stay apart; a stricter similarity joins nothing.
    const distinct = embeddingsOf([6, 6, 6]);
    expect(joinCoherentTopics(distinct, segAt([0, 6, 12], 18)).topics).toHaveLength(3);
    expect(joinCoherentTopics(e, segAt([0, 6, 12, 18, 24], 30), { similarity: 1.01 }).topics).toHaveLength(5);
    expect(joinCoherentTopics([], segAt([], 0)).topics).toEqual([]);
  });
});
