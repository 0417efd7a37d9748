import type { ScoreComponents, ScoreWeights } from '@cutroom/shared/clips/clips-v1';
import type { Sentence } from '@cutroom/shared/transcript/sentences';
import type { TranscriptWord } from '@cutroom/shared/transcript/transcript-v2';
import type { Span } from './candidates.ts';
import { cosine } from './embedder.ts';
import { contentStems, hookSignalsOf, hookWordingOf, openingOf } from './text-features.ts';
import { mean, meanDirection, ramp, similaritiesTo } from './vectors.ts';

/**
 * The quality score of a clip span: six components, each 0-100 with the measurement behind it,
 * and their weighted sum. Pure: sentences, words and sentence embeddings in.
 */

/**
 * What matters most for a clip posted on its own: that it makes sense without the talk around it
 * (the complaint users of clip tools voice most), then that it opens well and stays on one
 * subject; density, pace and dead air refine the order between otherwise similar moments.
 */
export const SCORE_WEIGHTS: ScoreWeights = {
  stands_alone: 0.25,
  hook_strength: 0.2,
  coherence: 0.2,
  information_density: 0.15,
  pace: 0.1,
  silence: 0.1,
};

/**
 * The bands each measurement is mapped through (linear between lo → 0 and hi → 100, clamped):
 * - coherence: mean cosine of each sentence to the clip centroid. MiniLM gives 0.55-0.7 for
 *   sentences of one subject and 0.2-0.35 for a mix of unrelated ones.
 * - density: distinct content-word stems per second. Dense explanatory speech runs about
 *   0.6-0.8/s; chat and filler 0.2-0.3/s.
 * - pace: words per minute; 130-185 is comfortable (full marks), 0 at 80 and at 240.
 * - silence: share of the span in pauses longer than SILENT_PAUSE_S (only the excess counts);
 *   5 % or less is full marks, 30 % or more is 0.
 * - stands_alone context: the opening's similarity to the sentences right after it minus its
 *   similarity to the sentences just before the clip; -0.2 → 0, +0.2 → 1.
 * - hook theme: the opening sentence's similarity to the clip centroid.
 */
export const SCORE_BANDS = {
  coherence: [0.25, 0.65],
  density: [0.3, 1.2],
  paceLow: [80, 130],
  paceHigh: [185, 240],
  silence: [0.05, 0.3],
  context: [-0.2, 0.2],
  hookTheme: [0.2, 0.7],
} as const;

/** A pause up to this long is speech rhythm; only the part beyond it is dead air. Seconds. */
export const SILENT_PAUSE_S = 0.5;

/** Sentences before the clip that stand for "what came before" in stands_alone (and as many after its opening for "the clip"). */
const CONTEXT_SENTENCES = 3;

export interface ScoreInput {
  sentences: readonly Sentence[];
  /** Every word of the transcript in order (`flattenWords`), indexed by the sentences' firstWord/endWord. */
  words: readonly TranscriptWord[];
  /** One normalized vector per sentence. */
  embeddings: readonly Float32Array[];
}

export interface SpanScore {
  components: ScoreComponents;
  weights: ScoreWeights;
  /** 0-100. */
  score: number;
  /** Per component: the measurement behind it, in words ("158 wpm"). */
  facts: Record<keyof ScoreComponents, string>;
  reason: string;
}

/** One component: its value 0..1 and the measurement behind it. */
interface Measured {
  value: number;
  fact: string;
}

interface SpanView extends ScoreInput {
  first: number;
  last: number;
  seconds: number;
  /** The span's words (from `words`). */
  spanWords: readonly TranscriptWord[];
  centroid: Float32Array;
}

export function scoreSpan(input: ScoreInput, span: Span, weights: ScoreWeights = SCORE_WEIGHTS): SpanScore {
  const { sentences: s } = input;
  const view: SpanView = {
    ...input,
    first: span.first,
    last: span.last,
    seconds: Math.max(1e-6, s[span.last]!.end - s[span.first]!.start),
    spanWords: input.words.slice(s[span.first]!.firstWord, s[span.last]!.endWord),
    centroid: meanDirection(input.embeddings, span.first, span.last + 1),
  };
  const measured: Record<keyof ScoreComponents, Measured> = {
    stands_alone: standsAloneOf(view),
    hook_strength: hookStrengthOf(view),
    coherence: coherenceOf(view),
    information_density: densityOf(view),
    pace: paceOf(view),
    silence: silenceOf(view),
  };
  const keys = Object.keys(measured) as (keyof ScoreComponents)[];
  const components = Object.fromEntries(keys.map((k) => [k, Math.round(100 * Math.min(1, Math.max(0, measured[k].value)))])) as ScoreComponents;
  const facts = Object.fromEntries(keys.map((k) => [k, measured[k].fact])) as SpanScore['facts'];
  const score = Math.round(keys.reduce((sum, k) => sum + weights[k] * components[k], 0));
  return { components, weights, score: Math.min(100, Math.max(0, score)), facts, reason: reasonLine(components, facts) };
}

/**
 * How it opens (a connective 0.5, a back-reference or a reply 0.6, clean 1) averaged with whether
 * the opening belongs to the clip: its two sentences against the 3 sentences after them and the 3
 * before the clip, on equal footing so neither side wins by averaging more sentences. × 0.85
 * when the talk right after the clip goes on with a connective (the thought continues).
 */
function standsAloneOf(v: SpanView): Measured {
  const { sentences: s, embeddings: e, first: a, last: b } = v;
  const opening = openingOf(s[a]!.text);
  const lexical = { connective: 0.5, back_reference: 0.6, answer: 0.6, clean: 1 }[opening.kind];
  const openingDir = meanDirection(e, a, Math.min(a + 2, b + 1));
  const within = b >= a + 2 ? cosine(openingDir, meanDirection(e, a + 2, Math.min(a + 2 + CONTEXT_SENTENCES, b + 1))) : 1;
  const before = a > 0 ? cosine(openingDir, meanDirection(e, a - CONTEXT_SENTENCES, a)) : Number.NaN;
  const context = Number.isNaN(before) ? 1 : ramp(within - before, ...SCORE_BANDS.context);
  const continues = b + 1 < s.length && openingOf(s[b + 1]!.text).kind === 'connective';
  const openingFact =
    opening.kind === 'clean' ? 'opens on its own' : `opens with “${opening.word}” (${opening.kind === 'answer' ? 'a reply' : 'leans on what came before'})`;
  const contextFact = Number.isNaN(before)
    ? 'starts the recording'
    : `opening ${within.toFixed(2)} similar to what follows vs ${before.toFixed(2)} to the talk before`;
  return {
    value: (0.5 * lexical + 0.5 * context) * (continues ? 0.85 : 1),
    fact: `${openingFact}, ${contextFact}${continues ? ', and the talk goes on with a connective' : ''}`,
  };
}

/** 0.7 × the better wording of the first two sentences (the second at 0.8) + 0.3 × the first sentence on the clip's theme. */
function hookStrengthOf(v: SpanView): Measured {
  const { sentences: s, embeddings: e, first: a, last: b } = v;
  const signals = [a, a + 1].filter((i) => i <= b).map((i) => hookSignalsOf(s[i]!.text));
  const wording = Math.max(...signals.map((x, i) => hookWordingOf(x) * (i === 0 ? 1 : 0.8)));
  const theme = ramp(cosine(e[a]!, v.centroid), ...SCORE_BANDS.hookTheme);
  const claim = signals.find((x) => x.claimWord)?.claimWord;
  const parts = [
    signals.some((x) => x.isQuestion) && 'a question',
    signals.some((x) => x.hasNumber) && 'a number',
    claim && `the claim word “${claim}”`,
    signals.some((x) => x.addressesYou) && 'addresses the listener',
  ].filter(Boolean);
  return {
    value: 0.7 * wording + 0.3 * theme,
    fact: parts.length > 0 ? `opening has ${parts.join(', ')}` : 'plain opening: no question, number or strong claim',
  };
}

function coherenceOf(v: SpanView): Measured {
  const meanSim = mean(similaritiesTo(v.centroid, v.embeddings, v.first, v.last + 1));
  return { value: ramp(meanSim, ...SCORE_BANDS.coherence), fact: `mean sentence similarity to the clip ${meanSim.toFixed(2)}` };
}

function densityOf(v: SpanView): Measured {
  const distinct = new Set(v.sentences.slice(v.first, v.last + 1).flatMap((x) => contentStems(x.text))).size;
  const perSecond = distinct / v.seconds;
  return { value: ramp(perSecond, ...SCORE_BANDS.density), fact: `${perSecond.toFixed(2)} distinct content words/s` };
}

function paceOf(v: SpanView): Measured {
  const wpm = v.spanWords.length / (v.seconds / 60);
  const value = wpm < SCORE_BANDS.paceHigh[0] ? ramp(wpm, ...SCORE_BANDS.paceLow) : 1 - ramp(wpm, ...SCORE_BANDS.paceHigh);
  return { value, fact: `${Math.round(wpm)} wpm` };
}

/** The excess of each pause over SILENT_PAUSE_S, as a share of the span. */
function silenceOf(v: SpanView): Measured {
  let silent = 0;
  for (let i = 1; i < v.spanWords.length; i++) silent += Math.max(0, v.spanWords[i]!.start - v.spanWords[i - 1]!.end - SILENT_PAUSE_S);
  const share = silent / v.seconds;
  return { value: 1 - ramp(share, ...SCORE_BANDS.silence), fact: `${Math.round(100 * share)} % in pauses` };
}

const LABELS: Record<keyof ScoreComponents, string> = {
  stands_alone: 'stands alone',
  hook_strength: 'hook',
  coherence: 'coherence',
  information_density: 'density',
  pace: 'pace',
  silence: 'silence',
};

/** "Strongest: coherence 92 (…), stands alone 88 (…); weakest: hook 31 (…)": the measurements, not a template verdict. */
export function reasonLine(components: ScoreComponents, facts: Record<keyof ScoreComponents, string>): string {
  const keys = (Object.keys(components) as (keyof ScoreComponents)[]).sort((x, y) => components[y] - components[x]);
  const part = (k: keyof ScoreComponents) => `${LABELS[k]} ${components[k]} (${facts[k]})`;
  return `Strongest: ${part(keys[0]!)}, ${part(keys[1]!)}; weakest: ${part(keys.at(-1)!)}.`;
}
