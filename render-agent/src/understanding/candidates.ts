import { DEFAULT_CLIP_LENGTHS } from '@cutroom/shared/clips/clip-targets';
import type { Segmentation } from './segment.ts';

/**
 * Best-mode clip spans from topic segmentation. Every span is whole sentences: it starts where
 * sentence `first` starts and ends where sentence `last` ends, and lasts `minSeconds` to
 * `maxSeconds`. Every span lies inside one topic (find_clips hands over topics with the coherent
 * neighbours joined: topic-edges.ts): it never starts on the tail of the topic before nor runs
 * into the next, so a topic too short for the lengths gets no span rather than one grown across
 * its boundary. A span that cannot be fitted (a long silence in the way) is dropped, never
 * stretched off a sentence edge. Pure: times and depths in, spans out.
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
  /** Shortest candidate, seconds. @default 120 (the default target's) */
  minSeconds?: number;
  /** Longest candidate, seconds. @default 300 */
  maxSeconds?: number;
  /**
   * When a span must be cut shorter, ends are ranked by the depth of the gap after them (a topic
   * shift is a natural end), ties broken towards this length. @default 180
   */
  idealSeconds?: number;
}

export interface CandidateOptions extends ClipLengthOptions {
  /**
   * Least time between two window starts inside one long topic, seconds (more when the topic is
   * long: they spread over all of it). @default half of `minSeconds` (60 s for the default, 7.5 s for short clips)
   */
  startSpacingSeconds?: number;
}

/** The default target's lengths (the spec's 2-5 minutes): what every option here falls back to. */
export const CLIP_LENGTH = DEFAULT_CLIP_LENGTHS;

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

/** The index of the topic that holds the whole span, or null (a span across a boundary). */
export function topicIndexOf(topics: readonly Span[], span: Span): number | null {
  const i = topics.findIndex((t) => span.first >= t.first && span.first <= t.last);
  return i >= 0 && span.last <= topics[i]!.last ? i : null;
}

/**
 * The seeds, each fitted inside its topic: every topic of clip length or more (whole when it
 * fits; a topic shorter than `minSeconds` gives none), and windows inside topics longer than
 * `maxSeconds`, starting at the topic's start and at its strongest internal sub-boundaries.
 * Duplicates are removed; overlapping spans are left for the caller to rank and thin out (`keepDistinct`).
 */
export function candidateSpans(sentences: readonly Timed[], seg: Pick<Segmentation, 'topics' | 'depth'>, o: CandidateOptions = {}): Span[] {
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const spacing = o.startSpacingSeconds ?? min / 2;
  if (speechSeconds(sentences) < min) return [];

  const seeds: { span: Span; bounds: Span }[] = [];
  for (const topic of seg.topics) {
    const seconds = spanSeconds(sentences, topic);
    if (seconds < min) continue;
    seeds.push({ span: topic, bounds: topic });
    if (seconds <= max) continue;
    // Window starts inside a long topic: about one per `min` seconds of it, deepest gaps first,
    // spread at least `spacing` apart and over the whole topic (a flat stretch, all depths 0,
    // gets evenly spaced sentence starts from its beginning to its end).
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
    for (const first of starts.slice(1)) seeds.push({ span: { first, last: topic.last }, bounds: topic });
  }

  const seen = new Set<string>();
  const out: Span[] = [];
  for (const seed of seeds) {
    const fitted = fitSpan(sentences, seg.depth, seed.span, { ...o, bounds: seed.bounds });
    if (!fitted) continue;
    const key = `${fitted.first}-${fitted.last}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(fitted);
    }
  }
  return out;
}

export interface FitOptions extends ClipLengthOptions {
  /** Sentences the span may grow into: its topic. Its edges count as the strongest boundaries. @default the whole recording */
  bounds?: Span;
}

/**
 * Fits a span to [minSeconds, maxSeconds] by whole sentences inside `bounds`, or null when it
 * cannot be. Too long: keep its start, end it at the sentence whose following gap is deepest
 * (ties: nearest `idealSeconds`); failing that, keep its end and pick the start the same way. Too
 * short: add one sentence at a time on the side whose gap is shallower, never past `bounds` nor
 * `maxSeconds`. `depth[g]` is the gap before sentence g (segment.ts).
 */
export function fitSpan(sentences: readonly Timed[], depth: readonly number[], span: Span, o: FitOptions = {}): Span | null {
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  const ideal = o.idealSeconds ?? CLIP_LENGTH.idealSeconds;
  const lo = Math.max(0, o.bounds?.first ?? 0);
  const hi = Math.min(sentences.length - 1, o.bounds?.last ?? sentences.length - 1);
  // The bounds' edges (a topic boundary, or the recording's own edges) are the strongest boundaries of all.
  const gapBefore = (g: number) => (g <= lo || g > hi ? Number.POSITIVE_INFINITY : (depth[g] ?? 0));
  const seconds = (first: number, last: number) => sentences[last]!.end - sentences[first]!.start;
  const closeness = (d: number) => (0.1 * Math.abs(d - ideal)) / (max - min);
  let first = Math.max(lo, span.first);
  let last = Math.min(hi, span.last);
  if (first > last) return null;

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
    const left = first > lo && seconds(first - 1, last) <= max ? gapBefore(first) : Number.NaN;
    const right = last < hi && seconds(first, last + 1) <= max ? gapBefore(last + 1) : Number.NaN;
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

export interface DistinctOptions<T> {
  /** Two spans overlapping more than this (intersection over union, in time) are the same moment twice. @default 0.5 */
  maxIoU?: number;
  /** Most spans kept. @default 10 */
  cap?: number;
  /**
   * The group an item belongs to (its topic), or null for none. Given, the best item of every
   * group is kept first, so each topic long enough for a clip is offered even when another
   * topic's spans all score higher; the rest of `cap` then goes by `better`. @default no groups
   */
  groupOf?: (item: T) => number | null;
}

/**
 * Best first (`better` sorts best first), dropping any span that overlaps a kept one by more than
 * `maxIoU`, up to `cap` spans (the best of each group first, with `groupOf`).
 */
export function keepDistinct<T extends { span: Span }>(
  s: readonly Timed[],
  items: readonly T[],
  better: (a: T, b: T) => number,
  o: DistinctOptions<T> = {},
): T[] {
  const maxIoU = o.maxIoU ?? 0.5;
  const cap = o.cap ?? 10;
  const sorted = [...items].sort(better);
  const kept: T[] = [];
  const keep = (item: T) => {
    if (kept.length < cap && !kept.includes(item) && kept.every((k) => timeIoU(s, k.span, item.span) <= maxIoU)) kept.push(item);
  };
  if (o.groupOf) {
    const served = new Set<number>();
    for (const item of sorted) {
      const group = o.groupOf(item);
      if (group === null || served.has(group)) continue;
      const before = kept.length;
      keep(item);
      if (kept.length > before) served.add(group);
    }
  }
  for (const item of sorted) keep(item);
  return kept.sort(better);
}
