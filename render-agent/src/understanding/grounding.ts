import { endsSentence } from '@cutroom/shared/transcript/sentences';
import { cosine, type Embedder } from './embedder.ts';
import { meanDirection } from './vectors.ts';
import { isContentWord, stem, tokenize } from './text-features.ts';

/**
 * Checks generated text against the transcript it was written from, sentence by sentence, so a
 * model's invention never reaches a caller. The rule (constants below, calibrated on
 * all-MiniLM-L6-v2 int8 with test/grounding.test.ts):
 *
 * A generated sentence is kept when one transcript window (1 to `maxWindow` consecutive
 * sentences) supports it, which takes all of:
 *   1. meaning: cosine(sentence, window) >= SUPPORT_COSINE;
 *   2. wording: at least SUPPORT_COVERAGE of the sentence's content words (lower case, stop
 *      words and talk-about-the-talk words such as "speaker" or "discusses" left out, lightly
 *      stemmed; light verbs and fillers such as "went" or "completely" need no support) occur in
 *      the window;
 *   3. facts: every number in the sentence (digits, number words from "two" up, so "20%" and
 *      "twenty percent" are the same, and multiples such as "doubled") occurs in the window, and every name (a capitalized word
 *      that does not open the sentence, or an acronym) occurs in the transcript (a name is often
 *      introduced once, sentences before the claim about it).
 * Otherwise it is dropped with the reason. Embeddings alone accept fluent inventions on the right
 * topic ("…and increased sales"); word overlap alone drops honest paraphrase; numbers and names are
 * where small models invent most, so those must match exactly.
 */

/** Least cosine between a sentence and the window that supports it. */
export const SUPPORT_COSINE = 0.45;
/** Least share of a sentence's content words found in its supporting window. */
export const SUPPORT_COVERAGE = 0.6;
/** A title is kept on meaning alone from this cosine (with TITLE_COVERAGE of its words found). */
export const TITLE_COSINE = 0.6;
/** Least share of a title's content words found in the transcript when it is kept on meaning. */
export const TITLE_COVERAGE = 0.5;
/** Longest run of consecutive transcript sentences one generated sentence may draw on. */
export const DEFAULT_MAX_WINDOW = 3;
/**
 * A sentence no window supports may still state what the span says as a whole ("The talk explains
 * how to care for tomato plants"): kept from SPAN_COSINE to the span's centroid, with more than
 * two thirds (SPAN_COVERAGE) of its content words (generalising words such as "advice" or
 * "history" aside) in the span, and every number and name exact. Calibrated on
 * test/fixtures/grounding/labelled-pairs.json and the bakery talk's inventions
 * (test/grounding.test.ts): 14/16 paraphrases and 5/12 generalisations kept (windows alone: 14
 * and 2), 16/16 inventions and the bakery's 5 refused; at 0.5 an invention on the talk's own
 * subject ("Customers can now order cakes online") passed.
 */
export const SPAN_COSINE = 0.35;
export const SPAN_COVERAGE = 0.7;

export interface GroundingOptions {
  /** @default DEFAULT_MAX_WINDOW (3) */
  maxWindow?: number;
  /** @default SUPPORT_COSINE */
  minCosine?: number;
  /** @default SUPPORT_COVERAGE */
  minCoverage?: number;
  /**
   * Judge a sentence that no window supports against the whole span as well (SPAN_COSINE): for
   * text that summarizes the span (a chapter's summary, a clip's, an overview), not for a claim
   * that must be found in one place. @default false
   */
  wholeSpan?: boolean;
}

/** Transcript sentences with their windows embedded once, for checking several texts against one transcript. */
export interface TranscriptIndex {
  sentences: readonly string[];
  windows: readonly Window[];
  /** Every word and number of the transcript (a title may draw on all of it). */
  whole: Terms;
  /** The mean direction of its sentences (what the span is about as a whole). */
  centroid: Float32Array;
}

interface Window {
  /** Index of its first sentence, and one past its last. */
  first: number;
  end: number;
  vector: Float32Array;
  terms: Terms;
}

interface Terms {
  /** Normalized content words (see norm). */
  words: Set<string>;
  /** Lower-case tokens as written (names are matched against these). */
  tokens: Set<string>;
  /** Numbers as canonical strings ("20", "3.5"). */
  numbers: Set<string>;
}

export interface Evidence {
  sentence: string;
  /** The supporting window: transcript sentences [first, end). */
  first: number;
  end: number;
  cosine: number;
  /** Share of the sentence's content words found in the window. */
  coverage: number;
}

export interface GroundedText {
  /** Supported sentences, in order. */
  kept: string[];
  /** Why each other sentence was dropped. */
  dropped: { sentence: string; reason: string }[];
  /** Where each kept sentence is supported (same order as kept). */
  evidence: Evidence[];
}

/** Embeds every window of 1..maxWindow consecutive sentences once. */
export async function indexTranscript(sentences: readonly string[], embedder: Embedder, o: { maxWindow?: number } = {}): Promise<TranscriptIndex> {
  const maxWindow = Math.max(1, o.maxWindow ?? DEFAULT_MAX_WINDOW);
  const spans: { first: number; end: number; text: string }[] = [];
  for (let size = 1; size <= maxWindow; size++) {
    for (let first = 0; first + size <= sentences.length; first++) {
      spans.push({ first, end: first + size, text: sentences.slice(first, first + size).join(' ') });
    }
  }
  const vectors = await embedder.embed(spans.map((s) => s.text));
  return {
    sentences,
    windows: spans.map((s, i) => ({ first: s.first, end: s.end, vector: vectors[i]!, terms: termsOf(s.text) })),
    whole: termsOf(sentences.join(' ')),
    centroid: meanDirection(vectors, 0, sentences.length),
  };
}

/** Splits generated text into sentences and keeps those the transcript supports (rule above). */
export async function groundText(
  generated: string,
  transcript: readonly string[] | TranscriptIndex,
  embedder: Embedder,
  o: GroundingOptions = {},
): Promise<GroundedText> {
  const index = await asIndex(transcript, embedder, o);
  const minCosine = o.minCosine ?? SUPPORT_COSINE;
  const minCoverage = o.minCoverage ?? SUPPORT_COVERAGE;
  const sentences = splitSentences(generated);
  const result: GroundedText = { kept: [], dropped: [], evidence: [] };
  if (sentences.length === 0) return result;
  const vectors = await embedder.embed(sentences);
  sentences.forEach((sentence, i) => {
    const claim = claimOf(sentence);
    let judged = judge(claim, vectors[i]!, index, minCosine, minCoverage);
    if ('reason' in judged && o.wholeSpan) judged = judgeOnSpan(claim, vectors[i]!, index, judged.reason);
    if ('reason' in judged) result.dropped.push({ sentence, reason: judged.reason });
    else {
      result.kept.push(sentence);
      result.evidence.push({ sentence, ...judged });
    }
  });
  return result;
}

/**
 * A title or hook: short, often in title case, and allowed to name what the whole passage is
 * about. Kept when every content word occurs somewhere in the transcript, or when it is close in
 * meaning to one window (cosine >= TITLE_COSINE) with TITLE_COVERAGE of its words found; its
 * numbers must occur in the transcript either way. Capitalization is not read as names here.
 */
export async function groundTitle(
  title: string,
  transcript: readonly string[] | TranscriptIndex,
  embedder: Embedder,
  o: GroundingOptions = {},
): Promise<{ isGrounded: boolean; reason: string }> {
  const index = await asIndex(transcript, embedder, o);
  const text = stripDecoration(title);
  const claim = claimOf(text, { readNames: false });
  const absentNumbers = claim.numbers.filter((n) => !index.whole.numbers.has(n));
  if (absentNumbers.length > 0) return { isGrounded: false, reason: `the number ${absentNumbers.join(', ')} is not in the transcript` };
  if (claim.words.length === 0) return { isGrounded: false, reason: 'it has no content words to check' };
  const missing = claim.words.filter((w) => !index.whole.words.has(w));
  if (missing.length === 0) return { isGrounded: true, reason: 'every content word occurs in the transcript' };
  const coverage = 1 - missing.length / claim.words.length;
  const [vector] = await embedder.embed([text]);
  const best = Math.max(...index.windows.map((w) => cosine(vector!, w.vector)));
  if (best >= TITLE_COSINE && coverage >= TITLE_COVERAGE) {
    return { isGrounded: true, reason: `close in meaning (cosine ${best.toFixed(2)}), ${Math.round(coverage * 100)}% of its words in the transcript` };
  }
  return {
    isGrounded: false,
    reason: `not in the transcript: ${missing.join(', ')} (cosine ${best.toFixed(2)}, ${Math.round(coverage * 100)}% of its words found)`,
  };
}

async function asIndex(transcript: readonly string[] | TranscriptIndex, embedder: Embedder, o: GroundingOptions): Promise<TranscriptIndex> {
  return 'windows' in transcript ? transcript : indexTranscript(transcript, embedder, o);
}

// --- the rule -------------------------------------------------------------------------------

interface Claim {
  /** Normalized content words that need support (duplicates removed). */
  words: string[];
  numbers: string[];
  /** Lower-case names. */
  names: string[];
}

function judge(
  claim: Claim,
  vector: Float32Array,
  index: TranscriptIndex,
  minCosine: number,
  minCoverage: number,
): Omit<Evidence, 'sentence'> | { reason: string } {
  if (claim.words.length === 0 && claim.numbers.length === 0) return { reason: 'it has no content words to check' };
  const absentNumbers = claim.numbers.filter((n) => !index.whole.numbers.has(n));
  if (absentNumbers.length > 0) return { reason: `the number ${absentNumbers.join(', ')} is not in the transcript` };
  const absentNames = claim.names.filter((n) => !index.whole.tokens.has(n));
  if (absentNames.length > 0) return { reason: `the name ${absentNames.join(', ')} is not in the transcript` };
  let bestCosine = -1;
  let nearest: { w: Window; cos: number; coverage: number } | undefined;
  let supported: { w: Window; cos: number; coverage: number } | undefined;
  for (const w of index.windows) {
    const cos = cosine(vector, w.vector);
    bestCosine = Math.max(bestCosine, cos);
    if (cos < minCosine) continue;
    const coverage = claim.words.length === 0 ? 1 : claim.words.filter((x) => w.terms.words.has(x)).length / claim.words.length;
    const hasFacts = claim.numbers.every((n) => w.terms.numbers.has(n));
    if (coverage >= minCoverage && hasFacts && (!supported || cos > supported.cos)) supported = { w, cos, coverage };
    if (!nearest || coverage > nearest.coverage || (coverage === nearest.coverage && cos > nearest.cos)) nearest = { w, cos, coverage };
  }
  if (supported) return { first: supported.w.first, end: supported.w.end, cosine: supported.cos, coverage: supported.coverage };
  if (!nearest) return { reason: `no transcript passage is close in meaning (best cosine ${bestCosine.toFixed(2)} < ${minCosine})` };
  const missing = claim.words.filter((x) => !nearest.w.terms.words.has(x));
  const lostFacts = claim.numbers.filter((n) => !nearest.w.terms.numbers.has(n));
  const where = `sentences ${nearest.w.first + 1}-${nearest.w.end}`;
  if (nearest.coverage < minCoverage) {
    return {
      reason: `not supported: ${missing.join(', ')} not in the closest passage (${where}: cosine ${nearest.cos.toFixed(2)}, ${Math.round(nearest.coverage * 100)}% of its words)`,
    };
  }
  return { reason: `the number ${lostFacts.join(', ')} is not in the passage that supports the rest (${where})` };
}

/** The whole-span rule (SPAN_COSINE); `windowReason` is kept when it fails on facts. */
function judgeOnSpan(claim: Claim, vector: Float32Array, index: TranscriptIndex, windowReason: string): Omit<Evidence, 'sentence'> | { reason: string } {
  if (claim.words.length === 0 && claim.numbers.length === 0) return { reason: windowReason };
  if (claim.numbers.some((n) => !index.whole.numbers.has(n)) || claim.names.some((n) => !index.whole.tokens.has(n))) return { reason: windowReason };
  const words = claim.words.filter((w) => !GENERALISING_WORDS.has(w));
  const coverage = words.length === 0 ? 1 : words.filter((w) => index.whole.words.has(w)).length / words.length;
  const cos = cosine(vector, index.centroid);
  if (cos >= SPAN_COSINE && coverage >= SPAN_COVERAGE) return { first: 0, end: index.sentences.length, cosine: cos, coverage };
  return {
    reason: `${windowReason}; nor by the passage as a whole (cosine ${cos.toFixed(2)} to its centre, ${Math.round(coverage * 100)}% of its words in it)`,
  };
}

/** Words that say what a passage is (a summary's framing), not what it claims: span-level judging does not ask the span for them. */
const GENERALISING_WORDS = new Set(
  [
    ...['talk', 'segment', 'section', 'part', 'topic', 'subject', 'overview', 'introduction', 'story', 'history', 'guide', 'recipe'],
    ...['advice', 'tips', 'tip', 'steps', 'step', 'basics', 'approach', 'method', 'process', 'practical', 'simple', 'important'],
    ...['covers', 'covered', 'explain', 'explains', 'walks', 'through', 'gives', 'offers', 'shows', 'describes', 'looks', 'looking', 'about'],
    ...['how', 'care', 'caring', 'managing', 'manage', 'making', 'make', 'dealing', 'deal', 'home', 'own', 'various', 'different'],
  ].map(norm),
);

function claimOf(sentence: string, o: { readNames?: boolean } = {}): Claim {
  const t = termsOf(sentence);
  const words = [...t.words].filter((w) => !UNCLAIMED_WORDS.has(w));
  return { words, numbers: [...t.numbers], names: o.readNames === false ? [] : namesOf(sentence) };
}

function termsOf(text: string): Terms {
  const tokens = tokenize(text).map((t) => t.replace(/'s$/, ''));
  return {
    words: new Set(tokens.filter((t) => isContentWord(t) && !/^\d/.test(t)).map(norm)),
    tokens: new Set(tokens),
    numbers: numbersOf(text),
  };
}

/** text-features' stem, then a final "e" off, so "lose"/"losing" and "bake"/"baking" meet. */
function norm(token: string): string {
  const s = stem(token);
  return s.length > 3 && s.endsWith('e') ? s.slice(0, -1) : s;
}

/**
 * Words a sentence may use without the transcript saying them: words about the talk itself (a
 * summary says "the speaker explains" where the transcript does not) and light verbs and fillers
 * that carry no claim ("went", "one time", "completely"). Normalized forms.
 */
const UNCLAIMED_WORDS = new Set(
  [
    ...['speaker', 'narrator', 'host', 'guest', 'episode', 'video', 'clip', 'podcast', 'transcript', 'listeners', 'viewers', 'discussion'],
    ...['discusses', 'discussed', 'explains', 'explained', 'describes', 'described', 'mentions', 'mentioned', 'shares', 'recounts'],
    ...['recalls', 'reflects', 'highlights', 'emphasizes', 'advises', 'suggests', 'argues', 'notes', 'talks', 'talked'],
    ...['went', 'going', 'gone', 'goes', 'came', 'comes', 'coming', 'took', 'takes', 'taking', 'gave', 'gives', 'giving', 'put', 'puts'],
    ...['using', 'used', 'uses', 'found', 'finds', 'thing', 'things', 'time', 'times', 'way', 'ways', 'lot', 'lots', 'kind'],
    ...['completely', 'entirely', 'simply', 'basically', 'actually', 'truly', 'certainly'],
  ].map(norm),
);

// --- numbers and names ----------------------------------------------------------------------

const UNITS = new Map<string, number>(
  Object.entries({
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    sixteen: 16,
    seventeen: 17,
    eighteen: 18,
    nineteen: 19,
    twenty: 20,
    thirty: 30,
    forty: 40,
    fifty: 50,
    sixty: 60,
    seventy: 70,
    eighty: 80,
    ninety: 90,
  }),
);
/** "doubled" and "tripled" are numbers a model swaps as readily as digits. */
const MULTIPLES = new Map<string, string>([
  ...['double', 'doubled', 'doubles', 'doubling', 'twice', 'twofold'].map((w): [string, string] => [w, '×2']),
  ...['triple', 'tripled', 'triples', 'tripling', 'thrice', 'threefold'].map((w): [string, string] => [w, '×3']),
  ...['quadruple', 'quadrupled', 'quadruples', 'quadrupling', 'fourfold'].map((w): [string, string] => [w, '×4']),
  ...['half', 'halved', 'halves', 'halving'].map((w): [string, string] => [w, '½']),
  ...['tenfold'].map((w): [string, string] => [w, '×10']),
]);
const SCALES = new Map<string, number>(Object.entries({ hundred: 100, thousand: 1000, million: 1e6, billion: 1e9 }));

/**
 * Numbers as canonical strings: digit runs ("1,200" → "1200", "3.5", "20%" → "20", "1st" → "1")
 * spelled-out numbers from two up ("twenty five" → "25", "three hundred" → "300"), and multiples
 * ("doubled"/"twice" → "×2", "half" → "½"). "one" is left out: it is far more often a pronoun or an
 * article ("one of them") than a quantity.
 */
export function numbersOf(text: string): Set<string> {
  const out = new Set<string>();
  // Whisper may space a thousands separator ("30 ,000"): read it as the one number it is.
  const joined = text.replace(/(\d) ,(?=\d{3}\b)/g, '$1,');
  for (const m of joined.matchAll(/\d[\d,]*(?:\.\d+)?/g)) {
    const n = Number(m[0].replace(/,/g, ''));
    if (Number.isFinite(n)) out.add(String(n));
  }
  let value = 0;
  let group = 0;
  let inNumber = false;
  const flush = (): void => {
    if (inNumber) out.add(String(value + group));
    value = 0;
    group = 0;
    inNumber = false;
  };
  for (const w of text.toLowerCase().split(/[^a-z]+/)) {
    const multiple = MULTIPLES.get(w);
    if (multiple !== undefined) out.add(multiple);
    const unit = UNITS.get(w);
    const scale = SCALES.get(w);
    if (unit !== undefined) {
      group += unit;
      inNumber = true;
    } else if (scale !== undefined && inNumber) {
      if (scale === 100) group *= 100;
      else {
        value += group * scale;
        group = 0;
      }
    } else if (w === 'and' && inNumber) {
      // "three hundred and twenty"
    } else flush();
  }
  flush();
  return out;
}

/** Capitalized words that do not open a sentence or clause, and acronyms: lower case, possessive dropped. */
function namesOf(sentence: string): string[] {
  const names = new Set<string>();
  const words = sentence.split(/\s+/).filter(Boolean);
  words.forEach((raw, i) => {
    const w = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/['’]s$/, '');
    if (w === '' || w === 'I' || /^I['’]/.test(w)) return;
    const opensClause = i === 0 || /[.!?:;"“]$/.test(words[i - 1]!) || /^["“(]/.test(raw);
    const isAcronym = /^\p{Lu}{2,}\d*$/u.test(w);
    if (isAcronym || (!opensClause && /^\p{Lu}/u.test(w))) names.add(w.toLowerCase());
  });
  return [...names];
}

// --- splitting ------------------------------------------------------------------------------

/** Sentences of generated text: list markers and surrounding quotes off, each line split at its sentence ends. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const words = stripDecoration(line).split(/\s+/).filter(Boolean);
    let current: string[] = [];
    for (const w of words) {
      current.push(w);
      if (endsSentence(w)) {
        out.push(current.join(' '));
        current = [];
      }
    }
    if (current.length > 0) out.push(current.join(' '));
  }
  return out.filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** "- ", "1. ", "**Title:**"-style wrapping and enclosing quotes. */
function stripDecoration(line: string): string {
  return line
    .trim()
    .replace(/^(?:[-*•]\s+|\d+[.)]\s+)/, '')
    .replace(/\*\*/g, '')
    .replace(/^["“'‘](.*)["”'’]$/s, '$1')
    .trim();
}
