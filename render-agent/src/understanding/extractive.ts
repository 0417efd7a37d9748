import type { Sentence } from '@cutroom/shared/transcript/sentences';
import type { TranscriptWord } from '@cutroom/shared/transcript/transcript-v2';
import type { Span } from './candidates.ts';
import { cosine } from './embedder.ts';
import { contentStems, hookSignalsOf, hookWordingOf, isContentWord, openingOf, stem, tokenize } from './text-features.ts';
import { isUnsure } from './unsure-words.ts';
import { meanDirection, ramp } from './vectors.ts';

/**
 * The extractive floor: a title, a hook and a summary made only of the transcript's own words,
 * chosen with the sentence embeddings. Always available (no text model), and what a generated
 * text falls back to. Nothing here is invented: the title is a phrase cut from one sentence, the
 * hook and the summary are whole sentences, verbatim. Given the words with their probabilities,
 * the title and the hook stay clear of words the recognizer was unsure of (unsure-words.ts).
 */

export interface ExtractiveTexts {
  title: string;
  hook: string;
  summary: string;
}

export interface ExtractiveInput {
  /** Every sentence of the recording (document frequencies come from all of them). */
  sentences: readonly Sentence[];
  embeddings: readonly Float32Array[];
  /**
   * Every word of the transcript in order (`flattenWords`), indexed by the sentences'
   * firstWord/endWord: the title phrase never takes an unsure word, the hook is a sentence without
   * one where the span has such a sentence. @default none (every word taken as sure)
   */
  words?: readonly Pick<TranscriptWord, 'word' | 'probability'>[];
}

/** Longest title phrase, words. */
const TITLE_MAX_WORDS = 8;
/** A summary sentence shorter than this (words) is a fragment; longer than SUMMARY_MAX_WORDS, a run-on. */
const SUMMARY_MIN_WORDS = 5;
const SUMMARY_MAX_WORDS = 45;
/** Maximal marginal relevance: centrality minus this × similarity to a sentence already chosen. */
const REDUNDANCY = 0.5;

export function extractiveTexts(input: ExtractiveInput, span: Span): ExtractiveTexts {
  const centroid = meanDirection(input.embeddings, span.first, span.last + 1);
  const seconds = input.sentences[span.last]!.end - input.sentences[span.first]!.start;
  const inSpan = range(span.first, span.last);
  const count = inSpan.length <= 3 ? 1 : seconds <= 150 ? 2 : 3;
  const summary = pickCentral(input, inSpan, centroid, count)
    .map((i) => input.sentences[i]!.text)
    .join(' ');
  return { title: titleOf(input, span), hook: input.sentences[hookSentence(input, span, centroid)]!.text, summary };
}

/**
 * A whole-recording summary: `n` central sentences, verbatim, in time order. A recording of
 * several parts (topics, or chunks of `partSentences`) is summarized by parts: each part gets a
 * share of `n` by its duration (largest remainder) and gives its own most central sentences, so a
 * long recording's later parts are not crowded out by its first topic.
 */
export function extractiveSummary(
  sentences: readonly Sentence[],
  embeddings: readonly Float32Array[],
  n: number,
  o: { parts?: readonly Span[]; partSentences?: number } = {},
): { sentences: Sentence[]; text: string } {
  const input = { sentences, embeddings };
  const size = o.partSentences ?? 80;
  const parts =
    o.parts ?? range(0, Math.ceil(sentences.length / size) - 1).map((p) => ({ first: p * size, last: Math.min(sentences.length, (p + 1) * size) - 1 }));
  if (sentences.length === 0 || n <= 0) return { sentences: [], text: '' };
  const quota = shareByLargestRemainder(
    parts.map((p) => sentences[p.last]!.end - sentences[p.first]!.start),
    Math.min(n, sentences.length),
  );
  const chosen = parts.flatMap((p, i) => pickCentral(input, range(p.first, p.last), meanDirection(embeddings, p.first, p.last + 1), quota[i]!));
  const picked = chosen.sort((a, b) => a - b).map((i) => sentences[i]!);
  return { sentences: picked, text: picked.map((x) => x.text).join(' ') };
}

/** `n` split in proportion to `weights` in whole numbers (Hamilton's method). */
function shareByLargestRemainder(weights: readonly number[], n: number): number[] {
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const exact = weights.map((w) => (n * w) / total);
  const quota = exact.map(Math.floor);
  const byRemainder = exact.map((_, i) => i).sort((a, b) => exact[b]! - quota[b]! - (exact[a]! - quota[a]!));
  let left = n - quota.reduce((a, b) => a + b, 0);
  for (const i of byRemainder) if (left-- > 0) quota[i]!++;
  return quota;
}

/** `count` sentences of `pool` by maximal marginal relevance to `centroid`, returned in time order. */
function pickCentral(input: ExtractiveInput, pool: readonly number[], centroid: Float32Array, count: number): number[] {
  const words = (i: number) => tokenize(input.sentences[i]!.text).length;
  const usable = pool.filter((i) => words(i) >= SUMMARY_MIN_WORDS && words(i) <= SUMMARY_MAX_WORDS);
  const candidates = usable.length >= count ? usable : [...pool];
  const chosen: number[] = [];
  while (chosen.length < count && chosen.length < candidates.length) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const i of candidates) {
      if (chosen.includes(i)) continue;
      const e = input.embeddings[i]!;
      const redundancy = Math.max(0, ...chosen.map((j) => cosine(e, input.embeddings[j]!)));
      // A sentence that opens with "and"/"it" reads badly out of context: a small penalty.
      const opening = openingOf(input.sentences[i]!.text).kind === 'clean' ? 0 : 0.05;
      const score = cosine(e, centroid) - REDUNDANCY * redundancy - opening;
      if (score > bestScore) [best, bestScore] = [i, score];
    }
    chosen.push(best);
  }
  return chosen.sort((a, b) => a - b);
}

/**
 * The most hook-like sentence: wording (question, number, claim, "you", a graspable length),
 * closeness to the clip's theme, and an early position (a hook opens the clip, or comes soon).
 * A sentence with an unsure word is taken only when every other one has one too.
 */
function hookSentence(input: ExtractiveInput, span: Span, centroid: Float32Array): number {
  const all = range(span.first, span.last);
  const clean = all.filter((i) => !unsureFlagsOf(input, i).includes(true));
  return bestHook(input, span, centroid, clean) ?? bestHook(input, span, centroid, all) ?? span.first;
}

function bestHook(input: ExtractiveInput, span: Span, centroid: Float32Array, pool: readonly number[]): number | null {
  let best: number | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  const count = span.last - span.first + 1;
  for (const i of pool) {
    const text = input.sentences[i]!.text;
    const signals = hookSignalsOf(text);
    if (signals.words < 4 || signals.words > 40) continue;
    const position = 1 - (i - span.first) / count;
    const opening = openingOf(text).kind === 'clean' ? 0 : 0.2;
    const score = hookWordingOf(signals) + 0.3 * ramp(cosine(input.embeddings[i]!, centroid), 0.2, 0.7) + 0.2 * position - opening;
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  return best;
}

/**
 * Which surface words of sentence `i` (its text split at spaces) the recognizer was unsure of;
 * all false without `words`, or when the words do not line up with the text (a script written
 * without spaces).
 */
function unsureFlagsOf(input: ExtractiveInput, i: number): boolean[] {
  const s = input.sentences[i]!;
  const surface = s.text.split(/\s+/).filter(Boolean);
  if (!input.words) return surface.map(() => false);
  const flags = input.words.slice(s.firstWord, s.endWord).flatMap((w) => {
    const parts = w.word.trim().split(/\s+/).filter(Boolean);
    const unsure = isUnsure(w);
    return parts.map(() => unsure);
  });
  return flags.length === surface.length ? flags : surface.map(() => false);
}

/**
 * A title phrase: the span's keywords (content stems weighted tf × idf against the whole
 * recording), then the run of 2-8 consecutive words inside one sentence that carries the most
 * keyword weight per word, starting and ending on a content word and holding no unsure word; its
 * first letter capitalized.
 */
function titleOf(input: ExtractiveInput, span: Span): string {
  const n = input.sentences.length;
  const df = new Map<string, number>();
  for (const s of input.sentences) for (const st of new Set(contentStems(s.text))) df.set(st, (df.get(st) ?? 0) + 1);
  const tf = new Map<string, number>();
  for (let i = span.first; i <= span.last; i++) for (const st of contentStems(input.sentences[i]!.text)) tf.set(st, (tf.get(st) ?? 0) + 1);
  const weight = new Map([...tf].map(([st, f]) => [st, f * Math.log(1 + n / (df.get(st) ?? 1))]));

  let best: string[] = [];
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let i = span.first; i <= span.last; i++) {
    // Surface words; a window never crosses a clause mark (, ; : —) so the phrase reads as one.
    const words = input.sentences[i]!.text.split(/\s+/).filter(Boolean);
    const bare = words.map((w) => tokenize(w)[0] ?? '');
    const unsure = unsureFlagsOf(input, i);
    for (let a = 0; a < words.length; a++) {
      if (!isContentWord(bare[a]!) || unsure[a]) continue;
      const seen = new Set<string>();
      let sum = 0;
      for (let b = a; b < Math.min(words.length, a + TITLE_MAX_WORDS); b++) {
        if (b > a && /[,;:—–]$/.test(words[b - 1]!)) break;
        if (unsure[b]) break;
        const st = stem(bare[b]!);
        if (isContentWord(bare[b]!) && !seen.has(st)) {
          seen.add(st);
          sum += weight.get(st) ?? 0;
        }
        if (b === a || !isContentWord(bare[b]!)) continue;
        const score = sum / (b - a + 1) ** 0.5;
        if (score > bestScore) [best, bestScore] = [words.slice(a, b + 1), score];
      }
    }
  }
  if (best.length === 0) {
    const words = input.sentences[span.first]!.text.split(/\s+/).filter(Boolean);
    const unsure = unsureFlagsOf(input, span.first);
    const sure = words.filter((_, k) => !unsure[k]);
    best = (sure.length > 0 ? sure : words).slice(0, TITLE_MAX_WORDS);
  }
  const phrase = best.join(' ').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return phrase.charAt(0).toUpperCase() + phrase.slice(1);
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => from + k);
