import { describe, expect, it } from 'vitest';
import { CLIP_TARGETS, DEFAULT_CLIP_LENGTHS, DEFAULT_FALLBACK_LENGTHS } from '@cutroom/shared/clips/clip-targets';
import { candidateSpans, fitSpan, isClipSpan, keepDistinct, type Span, spanSeconds, type Timed, timeIoU, topicIndexOf } from './candidates.ts';
import type { TopicSpan } from './segment.ts';
import { seededRandom } from './test-fixtures.ts';

/** Sentences of the given lengths (seconds) separated by `gap` seconds (or per-gap values). */
function timeline(lengths: readonly number[], gap: number | readonly number[] = 0.4): Timed[] {
  let t = 0;
  return lengths.map((len, i) => {
    const s = { start: t, end: t + len };
    t += len + (typeof gap === 'number' ? gap : (gap[i] ?? 0.4));
    return s;
  });
}

/** Topics of `sizes` sentences each; depth 1 at their boundaries, small elsewhere. */
function topicsOf(sizes: readonly number[]): { topics: TopicSpan[]; depth: number[] } {
  const topics: TopicSpan[] = [];
  let first = 0;
  for (const size of sizes) {
    topics.push({ first, last: first + size - 1 });
    first += size;
  }
  const depth = Array.from({ length: first }, (_, g) => (topics.some((t) => t.first === g && g > 0) ? 1 : 0.02 * (g % 5)));
  return { topics, depth };
}

describe('clip spans: whole sentences, 120-300 s', () => {
  it('every span of random talks starts at a sentence start, ends at a sentence end and lasts 120-300 s (100 %)', () => {
    const rng = seededRandom(42);
    let total = 0;
    for (let run = 0; run < 200; run++) {
      const n = 20 + Math.floor(rng() * 300);
      // Sentences 1-30 s, pauses 0.1-3 s with an occasional long silence.
      const lengths = Array.from({ length: n }, () => 1 + rng() * 29);
      const gaps = Array.from({ length: n }, () => (rng() < 0.02 ? 20 + rng() * 200 : 0.1 + rng() * 3));
      const s = timeline(lengths, gaps);
      const sizes: number[] = [];
      for (let left = n; left > 0; ) {
        const size = Math.min(left, 1 + Math.floor(rng() * 60));
        sizes.push(size);
        left -= size;
      }
      const spans = candidateSpans(s, topicsOf(sizes));
      for (const span of spans) {
        expect(isClipSpan(s, span), JSON.stringify({ run, span, seconds: spanSeconds(s, span) })).toBe(true);
        expect(Number.isInteger(span.first) && Number.isInteger(span.last)).toBe(true);
      }
      total += spans.length;
    }
    expect(total).toBeGreaterThan(500);
  });

  it('gives no span when the speech is shorter than 120 s', () => {
    const s = timeline(Array(11).fill(10)); // 114 s
    expect(candidateSpans(s, topicsOf([11]))).toEqual([]);
  });

  it('takes a topic of clip length as it is, cuts a long one at its deepest gap, grows a short one across the weaker side', () => {
    const s = timeline(Array(60).fill(9.6)); // 10 s per sentence
    const { depth } = topicsOf([15, 45]);
    expect(fitSpan(s, depth, { first: 0, last: 14 })).toEqual({ first: 0, last: 14 });
    // Too long (45 sentences = 450 s): ends where the gap after is deepest (a sub-boundary at 40).
    const deeper = depth.map((d, g) => (g === 40 ? 0.9 : d));
    expect(fitSpan(s, deeper, { first: 15, last: 59 })).toEqual({ first: 15, last: 39 });
    // Too short (6 sentences, 59.6 s): grows leftwards, not across the strong boundary at 15, to
    // 13 sentences (12 would be 119.6 s).
    const grown = fitSpan(s, depth, { first: 9, last: 14 })!;
    expect(grown).toEqual({ first: 2, last: 14 });
    expect(spanSeconds(s, grown)).toBeCloseTo(129.6);
  });

  it('spreads windows over the whole of a long topic without inner boundaries', () => {
    const s = timeline(Array(120).fill(9.6)); // one 20-minute topic, every depth 0
    const spans = candidateSpans(s, { topics: [{ first: 0, last: 119 }], depth: Array(120).fill(0) });
    expect(spans.length).toBeGreaterThanOrEqual(9);
    for (const span of spans) expect(isClipSpan(s, span)).toBe(true);
    expect(Math.max(...spans.map((x) => s[x.last]!.end))).toBeGreaterThan(1000);
  });

  it('drops what a long silence makes impossible instead of leaving a sentence edge', () => {
    // 100 s of speech, a 400 s silence, 100 s of speech: no 120-300 s span exists.
    const s = timeline([...Array(10).fill(9.6), ...Array(10).fill(9.6)], [...Array(9).fill(0.4), 400]);
    expect(fitSpan(s, Array(20).fill(0), { first: 0, last: 9 })).toBeNull();
    expect(candidateSpans(s, topicsOf([10, 10]))).toEqual([]);
  });

  it('keeps the better of two heavily overlapping spans and caps the count', () => {
    const s = timeline(Array(100).fill(9.6));
    const items = [
      { span: { first: 0, last: 14 }, score: 70 },
      { span: { first: 2, last: 16 }, score: 80 }, // IoU with the first: 13/17 > 0.5
      { span: { first: 20, last: 34 }, score: 60 },
      { span: { first: 40, last: 54 }, score: 50 },
    ];
    expect(timeIoU(s, items[0]!.span, items[1]!.span)).toBeGreaterThan(0.5);
    const kept = keepDistinct(s, items, (a, b) => b.score - a.score, { cap: 2 });
    expect(kept.map((k) => k.score)).toEqual([80, 60]);
    const spans: Span[] = keepDistinct(s, items, (a, b) => b.score - a.score).map((k) => k.span);
    expect(spans).toHaveLength(3);
  });
});

const LENGTHS = { default: DEFAULT_CLIP_LENGTHS, fallback: DEFAULT_FALLBACK_LENGTHS, ...CLIP_TARGETS };

describe('clip spans stay inside their topics, at every target', () => {
  it('over random talks and every target, each span is of the target’s length and inside one topic (100 %)', () => {
    const rng = seededRandom(7);
    const counts: Record<string, number> = {};
    for (let run = 0; run < 120; run++) {
      const n = 20 + Math.floor(rng() * 200);
      const s = timeline(
        Array.from({ length: n }, () => 1 + rng() * 14),
        Array.from({ length: n }, () => (rng() < 0.02 ? 20 + rng() * 100 : 0.1 + rng() * 2)),
      );
      const sizes: number[] = [];
      for (let left = n; left > 0; ) {
        const size = Math.min(left, 1 + Math.floor(rng() * 50));
        sizes.push(size);
        left -= size;
      }
      const seg = topicsOf(sizes);
      for (const [name, lengths] of Object.entries(LENGTHS)) {
        const spans = candidateSpans(s, seg, lengths);
        for (const span of spans) {
          const context = JSON.stringify({ run, name, span, seconds: spanSeconds(s, span), topics: seg.topics });
          expect(isClipSpan(s, span, lengths), context).toBe(true);
          expect(topicIndexOf(seg.topics, span), context).not.toBeNull();
        }
        counts[name] = (counts[name] ?? 0) + spans.length;
      }
    }
    // Not vacuous: every target found spans.
    for (const name of Object.keys(LENGTHS)) expect(counts[name], name).toBeGreaterThan(100);
  });

  it('three ~70 s topics: the default finds no 2-5 minute span (it would cross a topic); the topics’ own lengths give one span per topic, each the topic', () => {
    // 7 sentences of 9.6 s + 0.4 s gaps = 69.6 s per topic; 3.5 minutes in all (the case that was reported).
    const s = timeline(Array(21).fill(9.6));
    const seg = topicsOf([7, 7, 7]);
    expect(candidateSpans(s, seg, DEFAULT_CLIP_LENGTHS)).toEqual([]);
    expect(candidateSpans(s, seg, CLIP_TARGETS.long)).toEqual([]);
    expect(candidateSpans(s, seg, DEFAULT_FALLBACK_LENGTHS)).toEqual(seg.topics);
    expect(candidateSpans(s, seg, CLIP_TARGETS.medium)).toEqual(seg.topics);
  });

  it('a 6-minute topic with the short target gives 15-60 s windows spread over all of it, none leaving it', () => {
    // 30 s before, a 6-minute topic (36 × 10 s), 30 s after.
    const s = timeline(Array(42).fill(9.6));
    const seg = topicsOf([3, 36, 3]);
    const spans = candidateSpans(s, seg, CLIP_TARGETS.short);
    const inside = spans.filter((x) => topicIndexOf(seg.topics, x) === 1);
    expect(inside.length).toBeGreaterThanOrEqual(8);
    for (const span of spans) {
      expect(isClipSpan(s, span, CLIP_TARGETS.short)).toBe(true);
      expect(topicIndexOf(seg.topics, span)).not.toBeNull();
    }
    // Spread: windows start in the topic's first minute and in its last two.
    const starts = inside.map((x) => s[x.first]!.start);
    expect(Math.min(...starts)).toBeLessThan(s[3]!.start + 60);
    expect(Math.max(...starts)).toBeGreaterThan(s[38]!.end - 120);
  });

  it('a topic shorter than the target’s minimum gets no span, never one grown into its neighbours', () => {
    // Topics of 9.6 s (one sentence), 49.6 s and 9.6 s: only the middle one is long enough for a short clip.
    const s = timeline(Array(7).fill(9.6));
    const seg = topicsOf([1, 5, 1]);
    const spans = candidateSpans(s, seg, CLIP_TARGETS.short);
    expect(spans).toEqual([{ first: 1, last: 5 }]);
    // fitSpan with the topic as bounds refuses to grow a span out of it; without bounds it would.
    expect(fitSpan(s, seg.depth, { first: 0, last: 0 }, { ...CLIP_TARGETS.short, bounds: seg.topics[0] })).toBeNull();
    expect(fitSpan(s, seg.depth, { first: 0, last: 0 }, CLIP_TARGETS.short)).toEqual({ first: 0, last: 1 });
  });

  it('keeps the best span of every topic first when asked (groups), then the rest by score', () => {
    const s = timeline(Array(40).fill(9.6));
    // Topic 0's windows all outscore topic 1's only span.
    const items = [
      { span: { first: 0, last: 3 }, topic: 0, score: 90 },
      { span: { first: 6, last: 9 }, topic: 0, score: 85 },
      { span: { first: 12, last: 15 }, topic: 0, score: 80 },
      { span: { first: 30, last: 33 }, topic: 1, score: 40 },
    ];
    const better = (a: (typeof items)[number], b: (typeof items)[number]) => b.score - a.score;
    // The control: by score alone, topic 1 is crowded out.
    expect(keepDistinct(s, items, better, { cap: 2 }).map((x) => x.topic)).toEqual([0, 0]);
    const grouped = keepDistinct(s, items, better, { cap: 2, groupOf: (x) => x.topic });
    expect(grouped.map((x) => x.score)).toEqual([90, 40]);
    expect(keepDistinct(s, items, better, { cap: 10, groupOf: (x) => x.topic }).map((x) => x.score)).toEqual([90, 85, 80, 40]);
  });
});
