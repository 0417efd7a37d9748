import { cosine } from './embedder.ts';
import type { Segmentation } from './segment.ts';
import { meanDirection } from './vectors.ts';

/**
 * Best-mode clip spans from topic segmentation. Every span is whole sentences: it starts where
 * sentence `first` starts and ends where sentence `last` ends, and lasts `minSeconds` to
 * `maxSeconds`; a span that cannot be fitted (a long silence in the way) is dropped, never
 * stretched off a sentence edge. Pure: times, depths and embeddings in, spans out.
 */

/** Sentences `first..last` (inclusive). */
export interface Span {
  first: number;
  last: number;
}

export interface Timed {
  start: number;
  end: number;
}

export interface ClipLengthOptions {
  /** Shortest candidate, seconds. @default 120 */
  minSeconds?: number;
  /** Longest candidate, seconds. @default 300 */
  maxSeconds?: number;
  /**
   * When a span must be cut shorter, ends are ranked by the depth of the gap after them (a topic
   * shift is a natural end), ties broken towards this length. @default 180
   */
  targetSeconds?: number;
}

export interface CandidateOptions extends ClipLengthOptions {
  /**
   * Adjacent topics whose centroids are at least this similar (cosine) are also offered merged
   * into one span: segmentation at c = 0.5 splits some long discussions in two. MiniLM puts two
   * halves of one subject around 0.6-0.8 and different subjects under 0.3. @default 0.55
   */
  mergeSimilarity?: number;
  /** Least time between two window starts inside one long topic, seconds (more when the topic is long: they spread over all of it). @default 60 */
  startSpacingSeconds?: number;
}

export const CLIP_LENGTH = { minSeconds: 120, maxSeconds: 300, targetSeconds: 180 } as const;

export const spanSeconds = (s: readonly Timed[], span: Span): number => s[span.last]!.end - s[span.first]!.start;

/** Seconds from the first word to the last: what the longest possible clip could cover. */
export const speechSeconds = (s: readonly Timed[]): number => (s.length === 0 ? 0 : s.at(-1)!.end - s[0]!.start);

/** Whether a span is a valid candidate: inside the sentence list, ordered, and of a clip's length. */
export function isClipSpan(s: readonly Timed[], span: Span, o: ClipLengthOptions = {}): boolean {
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  if (!Number.isInteger(span.first) || !Number.isInteger(span.last) || span.first < 0 || span.last >= s.length || span.first > span.last) return false;
  const d = spanSeconds(s, span);
  return d >= min && d <= max;
}

/**
 * The seeds: each topic; windows inside topics longer than `maxSeconds`, starting at the topic's
 * start and at its strongest internal sub-boundaries; runs of adjacent coherent topics merged.
 * Each seed is then fitted to the clip length by whole sentences (`fitSpan`). Duplicates are
 * removed; overlapping spans are left for the caller to rank and thin out (`keepDistinct`).
 */
export function candidateSpans(
  sentences: readonly Timed[],
  seg: Pick<Segmentation, 'topics' | 'depth'>,
  embeddings: readonly Float32Array[],
  o: CandidateOptions = {},
): Span[] {
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const spacing = o.startSpacingSeconds ?? 60;
  const mergeAt = o.mergeSimilarity ?? 0.55;
  if (speechSeconds(sentences) < min) return [];

  const seeds: Span[] = [];
  for (const topic of seg.topics) {
    seeds.push(topic);
    if (spanSeconds(sentences, topic) <= max) continue;
    // Window starts inside a long topic: about one per `min` seconds of it, deepest gaps first,
    // spread at least `spacing` apart and over the whole topic (a flat stretch, all depths 0,
    // gets evenly spaced sentence starts from its beginning to its end).
    const seconds = spanSeconds(sentences, topic);
    const wanted = Math.ceil(seconds / min);
    const apart = Math.max(spacing, seconds / (wanted + 1));
    const gaps = [];
    for (let g = topic.first + 1; g <= topic.last; g++) gaps.push(g);
    gaps.sort((a, b) => seg.depth[b]! - seg.depth[a]! || a - b);
    const starts = [topic.first];
    for (const g of gaps) {
      if (starts.length >= wanted) break;
      if (starts.every((s) => Math.abs(sentences[s]!.start - sentences[g]!.start) >= apart)) starts.push(g);
    }
    for (const first of starts.slice(1)) seeds.push({ first, last: topic.last });
  }
  const centroids = seg.topics.map((t) => meanDirection(embeddings, t.first, t.last + 1));
  // Every run i..j of coherent neighbours that fits, not only the longest: scoring picks.
  for (let i = 0; i < seg.topics.length; i++) {
    for (let j = i + 1; j < seg.topics.length && cosine(centroids[j - 1]!, centroids[j]!) >= mergeAt; j++) {
      const merged = { first: seg.topics[i]!.first, last: seg.topics[j]!.last };
      if (spanSeconds(sentences, merged) > max) break;
      seeds.push(merged);
    }
  }

  const seen = new Set<string>();
  const out: Span[] = [];
  for (const seed of seeds) {
    const fitted = fitSpan(sentences, seg.depth, seed, o);
    if (!fitted) continue;
    const key = `${fitted.first}-${fitted.last}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(fitted);
    }
  }
  return out;
}

/**
 * Fits a span to [minSeconds, maxSeconds] by whole sentences, or null when it cannot be.
 * Too long: keep its start, end it at the sentence whose following gap is deepest (ties: nearest
 * `targetSeconds`); failing that, keep its end and pick the start the same way. Too short: add one
 * sentence at a time on the side whose gap is shallower (crossing a weak boundary rather than a
 * strong one), never past `maxSeconds`. `depth[g]` is the gap before sentence g (segment.ts).
 */
export function fitSpan(sentences: readonly Timed[], depth: readonly number[], span: Span, o: ClipLengthOptions = {}): Span | null {
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  const target = o.targetSeconds ?? CLIP_LENGTH.targetSeconds;
  const n = sentences.length;
  // The recording's own edges are the strongest boundaries of all.
  const gapBefore = (g: number) => (g <= 0 || g >= n ? Number.POSITIVE_INFINITY : (depth[g] ?? 0));
  const seconds = (first: number, last: number) => sentences[last]!.end - sentences[first]!.start;
  const closeness = (d: number) => (0.1 * Math.abs(d - target)) / (max - min);
  let { first, last } = span;

  if (seconds(first, last) > max) {
    let best: Span | null = null;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let b = first; b <= last; b++) {
      const d = seconds(first, b);
      if (d < min || d > max) continue;
      const score = Math.min(gapBefore(b + 1), 10) - closeness(d);
      if (score > bestScore) [best, bestScore] = [{ first, last: b }, score];
    }
    for (let a = first; a <= last && !best; a++) {
      const d = seconds(a, last);
      if (d < min || d > max) continue;
      const score = Math.min(gapBefore(a), 10) - closeness(d);
      if (score > bestScore) [best, bestScore] = [{ first: a, last }, score];
    }
    return best;
  }

  while (seconds(first, last) < min) {
    const left = first > 0 && seconds(first - 1, last) <= max ? gapBefore(first) : Number.NaN;
    const right = last + 1 < n && seconds(first, last + 1) <= max ? gapBefore(last + 1) : Number.NaN;
    if (Number.isNaN(left) && Number.isNaN(right)) return null;
    if (Number.isNaN(right) || left < right) first--;
    else last++;
  }
  return { first, last };
}

/** Overlap of two spans in time: intersection over union, 0..1. */
export function timeIoU(s: readonly Timed[], a: Span, b: Span): number {
  const inter = Math.min(s[a.last]!.end, s[b.last]!.end) - Math.max(s[a.first]!.start, s[b.first]!.start);
  if (inter <= 0) return 0;
  return inter / (spanSeconds(s, a) + spanSeconds(s, b) - inter);
}

export interface DistinctOptions {
  /** Two spans overlapping more than this (intersection over union, in time) are the same moment twice. @default 0.5 */
  maxIoU?: number;
  /** Most spans kept. @default 10 */
  cap?: number;
}

/** Best first (`better` sorts best first), dropping any span that overlaps a kept one by more than `maxIoU`, up to `cap` spans. */
export function keepDistinct<T extends { span: Span }>(s: readonly Timed[], items: readonly T[], better: (a: T, b: T) => number, o: DistinctOptions = {}): T[] {
  const maxIoU = o.maxIoU ?? 0.5;
  const cap = o.cap ?? 10;
  const kept: T[] = [];
  for (const item of [...items].sort(better)) {
    if (kept.length >= cap) break;
    if (kept.every((k) => timeIoU(s, k.span, item.span) <= maxIoU)) kept.push(item);
  }
  return kept;
}
