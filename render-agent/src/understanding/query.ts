import type { QueryMatch } from '@cutroom/shared/clips/clips-v1';
import type { Sentence } from '@cutroom/shared/transcript/sentences';
import { CLIP_LENGTH, type ClipLengthOptions, type Span } from './candidates.ts';
import { cosine } from './embedder.ts';
import { contentStems, isContentWord, stem, tokenize } from './text-features.ts';
import { ramp } from './vectors.ts';

/**
 * Query mode: moments that match a query. Each sentence gets a match from its meaning (cosine of
 * its embedding to the query's) and its words (BM25 over the recording's sentences, stemmed);
 * the curve is smoothed over neighbouring sentences, its peaks are taken best first, and each
 * peak grows sentence by sentence towards the better-matching side into a clip of
 * `minSeconds`..`maxSeconds` (whole sentences, so still snapped), inside the peak's own topic: a
 * peak in a topic too short for a clip gives none. Pure: embeddings in.
 */

export interface QueryInput {
  query: string;
  /** The query's normalized embedding (same model as the sentences'). */
  queryEmbedding: Float32Array;
  sentences: readonly Sentence[];
  embeddings: readonly Float32Array[];
}

export interface QueryOptions extends ClipLengthOptions {
  /** Peaks to grow at most (the caller thins overlaps and caps the list). @default 20 */
  maxPeaks?: number;
  /**
   * Topic-shift depth at each gap (segment.ts `depth`, gap g before sentence g). When given,
   * growing weighs a neighbour's match minus the depth of the gap to it, so a moment stays inside
   * its topic. @default no depths (every gap 0)
   */
  depth?: readonly number[];
  /** The topics (segment.ts), in order and covering every sentence: a moment never grows out of its peak's. @default one topic, the whole recording */
  topics?: readonly Span[];
}

/**
 * Constants of the match:
 * - SEMANTIC_WEIGHT: meaning counts more than wording (a query rarely uses the speaker's words),
 *   but an exact rare term is strong evidence, hence 0.65 / 0.35.
 * - SEMANTIC_BAND: MiniLM cosine of a sentence to a short query: unrelated 0-0.15, on topic 0.4-0.7.
 *   A candidate's match score maps its best sentence's cosine through MATCH_SEMANTIC_BAND (0.65
 *   and above is full marks) and adds the idf-weighted share of query terms it contains.
 * - A peak below PEAK_SHARE of the best peak is not a moment of its own; growing stops past
 *   `minSeconds` once the next sentence matches below GROW_SHARE of its peak.
 * - A span whose best sentence is under MIN_SEMANTIC and that contains no query term is no match.
 * - BM25 with the usual k1 = 1.2, b = 0.75.
 */
const SEMANTIC_WEIGHT = 0.65;
const SEMANTIC_BAND = [0.1, 0.6] as const;
const MATCH_SEMANTIC_BAND = [0.15, 0.65] as const;
const PEAK_SHARE = 0.5;
const GROW_SHARE = 0.5;
const MIN_SEMANTIC = 0.2;
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Neighbour weights of the smoothing (offsets -2..2). */
const SMOOTHING = [0.25, 0.5, 1, 0.5, 0.25];

export interface SentenceMatches {
  /** Cosine of each sentence to the query. */
  semantic: number[];
  /** BM25 of each sentence for the query's content stems. */
  lexical: number[];
  /** SEMANTIC_WEIGHT × banded semantic + the rest × BM25 relative to the best sentence's, 0..1. */
  combined: number[];
  smoothed: number[];
  /** The query's content stems with their idf and the surface words that produced them. */
  terms: { stem: string; idf: number; words: string[] }[];
}

export function sentenceMatches(input: QueryInput): SentenceMatches {
  const docs = input.sentences.map((s) => contentStems(s.text));
  const n = docs.length;
  const avgLength = n === 0 ? 1 : Math.max(1, docs.reduce((t, d) => t + d.length, 0) / n);
  const byStem = new Map<string, string[]>();
  const queryTokens = tokenize(input.query);
  // A query of stop words only ("what is it") still matches by its words.
  for (const w of queryTokens.some(isContentWord) ? queryTokens.filter(isContentWord) : queryTokens) {
    const st = stem(w);
    byStem.set(st, [...new Set([...(byStem.get(st) ?? []), w])]);
  }
  const terms = [...byStem].map(([st, words]) => {
    const df = docs.filter((d) => d.includes(st)).length;
    return { stem: st, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)), words };
  });
  const lexical = docs.map((d) =>
    terms.reduce((sum, t) => {
      const tf = d.filter((x) => x === t.stem).length;
      return sum + (t.idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avgLength));
    }, 0),
  );
  const semantic = input.embeddings.map((e) => cosine(e, input.queryEmbedding));
  const maxLexical = Math.max(0, ...lexical);
  const combined = semantic.map(
    (x, i) => SEMANTIC_WEIGHT * ramp(x, ...SEMANTIC_BAND) + (1 - SEMANTIC_WEIGHT) * (maxLexical > 0 ? lexical[i]! / maxLexical : 0),
  );
  const smoothed = combined.map((_, i) => {
    let sum = 0;
    let weight = 0;
    for (let k = -2; k <= 2; k++) {
      if (i + k < 0 || i + k >= n) continue;
      sum += SMOOTHING[k + 2]! * combined[i + k]!;
      weight += SMOOTHING[k + 2]!;
    }
    return sum / weight;
  });
  return { semantic, lexical, combined, smoothed, terms };
}

export interface QueryHit {
  span: Span;
  match: QueryMatch;
  /** The sentence the moment grew from. */
  peak: number;
}

/** Query-mode spans with their match, best match first (overlaps not yet thinned: see keepDistinct). */
export function queryCandidates(input: QueryInput, o: QueryOptions = {}): QueryHit[] {
  const min = o.minSeconds ?? CLIP_LENGTH.minSeconds;
  const max = o.maxSeconds ?? CLIP_LENGTH.maxSeconds;
  const s = input.sentences;
  if (s.length === 0 || s.at(-1)!.end - s[0]!.start < min) return [];
  const m = sentenceMatches(input);
  const order = m.smoothed.map((_, i) => i).sort((x, y) => m.smoothed[y]! - m.smoothed[x]!);
  const best = m.smoothed[order[0]!]!;
  const hits: QueryHit[] = [];
  for (const peak of order) {
    if (hits.length >= (o.maxPeaks ?? 20) || m.smoothed[peak]! < PEAK_SHARE * best) break;
    if (hits.some((h) => peak >= h.span.first && peak <= h.span.last)) continue;
    const bounds = o.topics?.find((t) => peak >= t.first && peak <= t.last) ?? { first: 0, last: s.length - 1 };
    const span = growAround(s, m.smoothed, o.depth ?? [], peak, { min, max, bounds });
    if (!span) continue;
    const match = matchOf(input, m, span);
    if (match) hits.push({ span, match, peak });
  }
  return hits.sort((x, y) => y.match.score - x.match.score);
}

/**
 * Grows [peak, peak] one sentence at a time towards the better neighbour (its match less the
 * topic-shift depth of the gap to it), within [min, max] seconds and inside `bounds` (the peak's
 * topic); past `min`, it stops when that neighbour matches below GROW_SHARE of the peak.
 */
function growAround(
  s: readonly Sentence[],
  curve: readonly number[],
  depth: readonly number[],
  peak: number,
  { min, max, bounds }: { min: number; max: number; bounds: Span },
): Span | null {
  let first = peak;
  let last = peak;
  const seconds = (a: number, b: number) => s[b]!.end - s[a]!.start;
  for (;;) {
    const left = first > bounds.first && seconds(first - 1, last) <= max ? curve[first - 1]! - (depth[first] ?? 0) : Number.NaN;
    const right = last < bounds.last && seconds(first, last + 1) <= max ? curve[last + 1]! - (depth[last + 1] ?? 0) : Number.NaN;
    if (Number.isNaN(left) && Number.isNaN(right)) break;
    const goLeft = Number.isNaN(right) || left > right;
    const next = curve[goLeft ? first - 1 : last + 1]!;
    if (seconds(first, last) >= min && next < GROW_SHARE * curve[peak]!) break;
    if (goLeft) first--;
    else last++;
  }
  return seconds(first, last) >= min ? { first, last } : null;
}

const clock = (t: number) => `${Math.floor(t / 60)}:${String(Math.floor(t % 60)).padStart(2, '0')}`;

function matchOf(input: QueryInput, m: SentenceMatches, span: Span): QueryMatch | null {
  let bestSentence = span.first;
  for (let i = span.first; i <= span.last; i++) if (m.combined[i]! > m.combined[bestSentence]!) bestSentence = i;
  let semantic = Number.NEGATIVE_INFINITY;
  for (let i = span.first; i <= span.last; i++) semantic = Math.max(semantic, m.semantic[i]!);
  const inSpan = new Set(input.sentences.slice(span.first, span.last + 1).flatMap((x) => contentStems(x.text)));
  const found = m.terms.filter((t) => inSpan.has(t.stem));
  const idfTotal = m.terms.reduce((t, x) => t + x.idf, 0);
  const lexical = idfTotal > 0 ? found.reduce((t, x) => t + x.idf, 0) / idfTotal : 0;
  if (semantic < MIN_SEMANTIC && found.length === 0) return null;
  const matched = found.flatMap((t) => t.words);
  const sentence = input.sentences[bestSentence]!;
  const quoted = sentence.text.length > 160 ? `${sentence.text.slice(0, 157)}…` : sentence.text;
  const terms = matched.length > 0 ? `Matches ${matched.map((w) => `“${w}”`).join(', ')}` : 'Matches by meaning (no query word occurs)';
  return {
    score: Math.round(100 * (SEMANTIC_WEIGHT * ramp(semantic, ...MATCH_SEMANTIC_BAND) + (1 - SEMANTIC_WEIGHT) * lexical)),
    semantic: Math.max(-1, Math.min(1, semantic)),
    lexical,
    matched_terms: matched,
    why: `${terms}; closest sentence at ${clock(sentence.start)} (similarity ${m.semantic[bestSentence]!.toFixed(2)}): “${quoted}”`,
  };
}
