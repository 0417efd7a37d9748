import { cosine } from './embedder.ts';
import { mean, meanDirection, standardDeviation } from './vectors.ts';

/**
 * Topic segmentation over sentence embeddings, TextTiling-style (Hearst 1997, with embeddings in
 * place of word counts): at every gap between two sentences, compare the mean direction of the
 * `window` sentences before it with that of the `window` after it; smooth that similarity curve;
 * a gap's depth is how far the curve dips there below the nearest peaks on both sides; boundaries
 * are the deepest local maxima of depth above max(minDepth, mean + c·std), kept only when every topic stays at
 * least `minSentences` sentences and `minSeconds` long. Pure: no model, no clock.
 */

export interface SegmentOptions {
  /**
   * Sentences per block on each side of a gap. 4 spoken sentences are about 20-30 s: long enough
   * that one off-topic sentence does not look like a new topic, short enough to place a boundary
   * within a sentence or two. Shrinks to half the sentence count for very short inputs. @default 4
   */
  window?: number;
  /** Half-width (in gaps) of the moving average over gap similarities. @default 1 (3 gaps) */
  smoothing?: number;
  /**
   * A boundary's depth must exceed mean + c·std of the depths of all gaps. 0.5 keeps clear topic
   * shifts and drops the ripples inside a topic (Hearst's liberal cut-off was mean − std/2 over
   * valleys only; over all gaps, most of which have depth 0, a positive c is the equivalent). @default 0.5
   */
  c?: number;
  /**
   * A boundary's depth must also reach this, whatever the spread: the threshold above is relative,
   * so without a floor one even monologue would still be cut at its ripples. Ripples inside one
   * subject measure 0.05-0.4 with MiniLM; changes of subject 0.8-1.2. @default 0.1
   */
  minDepth?: number;
  /** Fewest sentences in a topic. @default 4 */
  minSentences?: number;
  /** Shortest topic in seconds, checked when `times` is given. @default 30 */
  minSeconds?: number;
  /** Each sentence's start and end (seconds), for `minSeconds`. */
  times?: readonly { start: number; end: number }[];
}

/** Sentences `first..last` (inclusive). */
export interface TopicSpan {
  first: number;
  last: number;
}

export interface TopicBoundary {
  /** The first sentence of the new topic (the gap is just before it). */
  sentence: number;
  /** The depth score at that gap (0..~2; higher is a sharper change of topic). */
  depth: number;
}

export interface Segmentation {
  /** The block size actually used. */
  window: number;
  /** Smoothed similarity at gap g (before sentence g), g = 1..n-1; index 0 is NaN. */
  similarity: number[];
  /** Depth at gap g, g = 1..n-1; index 0 is 0. */
  depth: number[];
  /** The depth a boundary had to exceed. */
  threshold: number;
  /** Chosen boundaries in sentence order. */
  boundaries: TopicBoundary[];
  /** Topics covering every sentence in order. */
  topics: TopicSpan[];
}

export const SEGMENT_DEFAULTS = { window: 4, smoothing: 1, c: 0.5, minDepth: 0.1, minSentences: 4, minSeconds: 30 } as const;

export function segmentTopics(embeddings: readonly Float32Array[], o: SegmentOptions = {}): Segmentation {
  const n = embeddings.length;
  const k = Math.max(1, Math.min(o.window ?? SEGMENT_DEFAULTS.window, Math.floor(n / 2)));
  const similarity = rawSimilarities(embeddings, k);
  smoothInPlace(similarity, o.smoothing ?? SEGMENT_DEFAULTS.smoothing);
  const depth = depthScores(similarity);
  const gapDepths = depth.slice(1);
  const threshold = Math.max(o.minDepth ?? SEGMENT_DEFAULTS.minDepth, mean(gapDepths) + (o.c ?? SEGMENT_DEFAULTS.c) * standardDeviation(gapDepths));

  const minSentences = o.minSentences ?? SEGMENT_DEFAULTS.minSentences;
  const minSeconds = o.times ? (o.minSeconds ?? SEGMENT_DEFAULTS.minSeconds) : 0;
  const longEnough = (first: number, last: number) =>
    last - first + 1 >= minSentences && (!o.times || o.times[last]!.end - o.times[first]!.start >= minSeconds);

  // Deepest first; a gap is taken when both topics it would create are long enough.
  const chosen: number[] = [];
  const peaks = localMaxima(depth).filter((g) => depth[g]! > threshold);
  for (const g of peaks.sort((a, b) => depth[b]! - depth[a]!)) {
    const before = Math.max(0, ...chosen.filter((b) => b < g));
    const after = Math.min(n, ...chosen.filter((b) => b > g));
    if (longEnough(before, g - 1) && longEnough(g, after - 1)) chosen.push(g);
  }
  chosen.sort((a, b) => a - b);
  const starts = [0, ...chosen];
  const topics = n === 0 ? [] : starts.map((first, i) => ({ first, last: (starts[i + 1] ?? n) - 1 }));
  return { window: k, similarity, depth, threshold, boundaries: chosen.map((sentence) => ({ sentence, depth: depth[sentence]! })), topics };
}

/** Cosine between the mean directions of the k sentences before and the k after each gap (truncated at the ends). */
function rawSimilarities(embeddings: readonly Float32Array[], k: number): number[] {
  const n = embeddings.length;
  const sims = [Number.NaN];
  for (let g = 1; g < n; g++) sims.push(cosine(meanDirection(embeddings, g - k, g), meanDirection(embeddings, g, g + k)));
  return sims;
}

function smoothInPlace(sims: number[], halfWidth: number): void {
  if (halfWidth <= 0) return;
  const raw = sims.slice();
  for (let g = 1; g < raw.length; g++) {
    const lo = Math.max(1, g - halfWidth);
    const hi = Math.min(raw.length - 1, g + halfWidth);
    sims[g] = mean(raw.slice(lo, hi + 1));
  }
}

/** Hearst's depth: climb from the gap to the nearest peak on each side; sum of both rises. */
function depthScores(sims: readonly number[]): number[] {
  const depth = [0];
  for (let g = 1; g < sims.length; g++) {
    let left = g;
    while (left - 1 >= 1 && sims[left - 1]! >= sims[left]!) left--;
    let right = g;
    while (right + 1 < sims.length && sims[right + 1]! >= sims[right]!) right++;
    depth.push(sims[left]! - sims[g]! + (sims[right]! - sims[g]!));
  }
  return depth;
}

/** Gaps whose depth is at least their left neighbour's and more than their right one's (one per plateau). */
function localMaxima(depth: readonly number[]): number[] {
  const out: number[] = [];
  for (let g = 1; g < depth.length; g++) {
    const left = g > 1 ? depth[g - 1]! : Number.NEGATIVE_INFINITY;
    const right = g + 1 < depth.length ? depth[g + 1]! : Number.NEGATIVE_INFINITY;
    if (depth[g]! >= left && depth[g]! > right) out.push(g);
  }
  return out;
}
