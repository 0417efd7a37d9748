import { describe, expect, it } from 'vitest';
import { segmentTopics } from './segment.ts';
import { seededRandom } from './test-fixtures.ts';

const DIMS = 48;

/** Unit vectors around one base direction per topic: base + noise·N(0,1)-ish, normalized. */
function topicEmbeddings(lengths: number[], noise: number, seed = 1): Float32Array[] {
  const rng = seededRandom(seed);
  const gauss = () => (rng() + rng() + rng() + rng() - 2) * 1.2;
  const out: Float32Array[] = [];
  for (const n of lengths) {
    const base = Float32Array.from({ length: DIMS }, gauss);
    for (let i = 0; i < n; i++) {
      const v = base.map((x) => x + noise * gauss());
      const norm = Math.hypot(...v);
      out.push(v.map((x) => x / norm));
    }
  }
  return out;
}

describe('topic segmentation (TextTiling over embeddings)', () => {
  it('puts boundaries exactly at the changes between distinct topics', () => {
    const seg = segmentTopics(topicEmbeddings([20, 25, 15, 30], 0.8));
    expect(seg.boundaries.map((b) => b.sentence)).toEqual([20, 45, 60]);
    expect(seg.topics).toEqual([
      { first: 0, last: 19 },
      { first: 20, last: 44 },
      { first: 45, last: 59 },
      { first: 60, last: 89 },
    ]);
    for (const b of seg.boundaries) expect(b.depth).toBeGreaterThan(seg.threshold);
    expect(seg.window).toBe(4);
  });

  it('finds no boundary in one even topic (the depth floor), and covers every sentence', () => {
    const seg = segmentTopics(topicEmbeddings([60], 0.3, 7));
    expect(seg.boundaries).toEqual([]);
    expect(seg.topics).toEqual([{ first: 0, last: 59 }]);
  });

  it('keeps every topic at least minSentences and minSeconds long', () => {
    // A 2-sentence aside between two topics is not a topic of its own.
    const e = topicEmbeddings([20, 2, 20], 0.5, 3);
    const seg = segmentTopics(e, { minSentences: 4 });
    for (const t of seg.topics) expect(t.last - t.first + 1).toBeGreaterThanOrEqual(4);
    // With 10 s sentences and a 150 s minimum, at most one boundary fits in 42 sentences (420 s).
    const times = e.map((_, i) => ({ start: 10 * i, end: 10 * i + 9.5 }));
    const long = segmentTopics(topicEmbeddings([14, 14, 14], 0.5, 4), { times, minSeconds: 150 });
    for (const t of long.topics) expect(times[t.last]!.end - times[t.first]!.start).toBeGreaterThanOrEqual(150);
    expect(long.topics.length).toBeLessThanOrEqual(2);
  });

  it('degrades gracefully on tiny inputs', () => {
    expect(segmentTopics([]).topics).toEqual([]);
    expect(segmentTopics(topicEmbeddings([1], 0.1)).topics).toEqual([{ first: 0, last: 0 }]);
    const three = segmentTopics(topicEmbeddings([3], 0.1));
    expect(three.window).toBe(1);
    expect(three.topics).toEqual([{ first: 0, last: 2 }]);
  });

  it('reports a depth per gap, highest at the true boundary', () => {
    const seg = segmentTopics(topicEmbeddings([15, 15], 0.6, 9));
    expect(seg.depth).toHaveLength(30);
    const deepest = seg.depth.indexOf(Math.max(...seg.depth));
    expect(deepest).toBe(15);
  });
});
