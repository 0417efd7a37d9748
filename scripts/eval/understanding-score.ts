/**
 * Scoring for `npm run eval:understanding`, independent of the production judge (grounding.ts):
 * written from the evaluation set's script and hand-written claims only, so the service is never
 * graded by its own check. Pure functions; tests beside it.
 *
 * - coverage: a claim is conveyed when every one of its terms (alternatives `a|b`) prefixes a word
 *   of the text; a topic is covered when one of its claims is.
 * - faithfulness: a generated sentence is faithful when every number in it is a number the talk
 *   says (digits and spoken forms, years read as pairs included), every name (a capitalized word
 *   that does not open the sentence) is a word of the talk, and either it conveys a claim or at
 *   least half of its content words are words of the talk.
 * - boundaries: each true topic boundary against the nearest chapter start.
 * - texts: orphaned openings ("also", "this", "he", "the clip" …) and words the recognizer was
 *   unsure of.
 */

const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINALS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  thirtieth: 30,
};
const SCALE: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000, billion: 1_000_000_000 };

function wordValue(w: string): number | null {
  const i = SMALL.indexOf(w);
  if (i >= 0) return i;
  const t = TENS.indexOf(w);
  if (t >= 2) return t * 10;
  if (w in ORDINALS) return ORDINALS[w]!;
  return null;
}

const isNumberWord = (w: string): boolean => wordValue(w) !== null || w in SCALE || w === 'oh';

/** Every number a text says: digits ("1,250", "3.5", "15th") and runs of number words, with a run of two pairs also read as a year ("nineteen sixty nine" → 1969, "nineteen oh four" → 1904). */
export function numbersIn(text: string): Set<number> {
  const out = new Set<number>();
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/\d[\d,]*(?:\.\d+)?/g)) out.add(Number(m[0].replace(/,/g, '')));
  const words = lower.match(/[a-z]+/g) ?? [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) for (const v of readRun(run)) out.add(v);
    run = [];
  };
  for (const w of words) {
    // "a" and "one" alone are articles more often than numbers.
    if (isNumberWord(w) && !(w === 'oh' && run.length === 0)) run.push(w);
    else flush();
  }
  flush();
  out.delete(1);
  return out;
}

function readRun(run: string[]): number[] {
  const values: number[] = [];
  let total = 0;
  let current = 0;
  for (const w of run) {
    if (w in SCALE) {
      current = (current || 1) * SCALE[w]!;
      if (SCALE[w]! >= 1000) {
        total += current;
        current = 0;
      }
    } else if (w !== 'oh') current += wordValue(w)!;
  }
  values.push(total + current);
  // A year: "nineteen sixty nine", "sixteen fifty", "nineteen oh four", "eighteen seventeen".
  const first = wordValue(run[0]!);
  if (first !== null && first >= 10 && first <= 20 && run.length >= 2 && !run.some((w) => w in SCALE)) {
    const rest = run.slice(1);
    const restValue = rest.reduce((s, w) => s + (w === 'oh' ? 0 : (wordValue(w) ?? 0)), 0);
    values.push(first * 100 + restValue);
  }
  return values;
}

const STOP = new Set(
  (
    'the a an and or but of to in on at for with from by as is are was were be been being it its this that these those there their they them he she his her ' +
    'you your we our i not no so than then when which who what how why into onto over under about after before during also can could would should will may ' +
    'more most less such each every all any some many much very just only even up out off one has have had does did do while where because until'
  ).split(' '),
);

/** Lower-case word stems: possessives and common endings off (light, and the same for both sides). */
export function stemsOf(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/['’]s\b/g, '')
      .match(/[a-z]+/g) ?? []
  ).map(stemOf);
}

function stemOf(w: string): string {
  if (w.length <= 4) return w;
  return w.replace(/(?:ies|ied)$/, 'y').replace(/(?:ing|ed|es|s)$/, '');
}

/** Whether a term (alternatives `a|b`, each a stem prefix) names a word of `stems`. */
function termIn(term: string, stems: readonly string[]): boolean {
  return term.split('|').some((alt) => {
    const a = stemOf(alt.toLowerCase());
    return stems.some((s) => s.startsWith(a) || (/^\d+$/.test(alt) && s === alt));
  });
}

export interface Claim {
  text: string;
  terms: string[];
}

/** Whether `text` conveys the claim: every term matched. */
export function conveys(claim: Claim, text: string): boolean {
  const stems = [...stemsOf(text), ...(text.match(/\d+/g) ?? [])];
  return claim.terms.every((t) => termIn(t, stems));
}

export interface SentenceVerdict {
  sentence: string;
  isFaithful: boolean;
  /** Why not, when not. */
  reason: string;
}

/** Sentences of a text (on . ! ? followed by space and a capital or the end). */
export function sentencesOfText(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“])/)
    .map((s) => s.trim())
    .filter((s) => /[a-z]/i.test(s));
}

/** Faithfulness of one generated sentence to a talk (its script and claims): rule in the file comment. */
export function judgeSentence(sentence: string, script: string, claims: readonly Claim[]): SentenceVerdict {
  const said = numbersIn(script);
  const invented = [...numbersIn(sentence)].filter((n) => !said.has(n));
  if (invented.length > 0) return { sentence, isFaithful: false, reason: `number not in the talk: ${invented.join(', ')}` };
  const scriptWords = new Set(script.toLowerCase().match(/[a-z]+/g) ?? []);
  const words = sentence.match(/[A-Za-z][A-Za-z'’]*/g) ?? [];
  const names = words.slice(1).filter((w) => /^[A-Z]/.test(w) && w.length > 1);
  const unknownNames = names.map((n) => n.replace(/['’]s$/, '')).filter((n) => !scriptWords.has(n.toLowerCase()));
  if (unknownNames.length > 0) return { sentence, isFaithful: false, reason: `name not in the talk: ${unknownNames.join(', ')}` };
  if (claims.some((c) => conveys(c, sentence))) return { sentence, isFaithful: true, reason: '' };
  const scriptStems = stemsOf(script);
  const content = stemsOf(sentence).filter((s) => s.length >= 4 && !STOP.has(s));
  if (content.length === 0) return { sentence, isFaithful: true, reason: '' };
  const found = content.filter((s) => scriptStems.some((t) => t === s || (s.length >= 5 && t.startsWith(s)) || (t.length >= 5 && s.startsWith(t))));
  const share = found.length / content.length;
  return share >= 0.5
    ? { sentence, isFaithful: true, reason: '' }
    : { sentence, isFaithful: false, reason: `conveys no claim and ${Math.round(share * 100)} % of its words are the talk's` };
}

export interface BoundaryScore {
  /** True boundaries with a chapter start within `tolerance` seconds. */
  found: number;
  of: number;
  /** Mean seconds from each found boundary to its chapter start. */
  meanError: number | null;
  /** Chapter starts (after the first) more than `tolerance` from every true boundary. */
  spurious: number;
}

export function scoreBoundaries(trueBoundaries: readonly number[], chapterStarts: readonly number[], tolerance = 10): BoundaryScore {
  const starts = chapterStarts.filter((s) => s > 0);
  const errors: number[] = [];
  for (const b of trueBoundaries) {
    const e = Math.min(...starts.map((s) => Math.abs(s - b)));
    if (e <= tolerance) errors.push(e);
  }
  const spurious = starts.filter((s) => !trueBoundaries.some((b) => Math.abs(s - b) <= tolerance)).length;
  return {
    found: errors.length,
    of: trueBoundaries.length,
    meanError: errors.length ? errors.reduce((a, b) => a + b, 0) / errors.length : null,
    spurious,
  };
}

/** An opening that refers to something the reader was not shown. */
const ORPHAN_START =
  /^(?:also|and|but|this|that|these|those|it|its|he|she|they|his|her|their|them|additionally|furthermore|moreover|however|then|the (?:clip|speaker|video|recording|talk|part|section))\b/i;

export const isOrphaned = (text: string): boolean => ORPHAN_START.test(text.trim());

/** Words of `text` the recognizer was unsure of: every occurrence in the transcript below `threshold`. */
export function unsureWordsIn(text: string, words: readonly { word: string; probability?: number | null }[], threshold = 0.5): string[] {
  const best = new Map<string, number>();
  for (const w of words) {
    const k = w.word.toLowerCase().replace(/[^a-z0-9']/g, '');
    if (!k) continue;
    best.set(k, Math.max(best.get(k) ?? 0, w.probability ?? 1));
  }
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[a-z0-9']+/g) ?? []) {
    const p = best.get(raw);
    if (p !== undefined && p < threshold && !out.includes(raw)) out.push(raw);
  }
  return out;
}

/** Whether a span crosses a true boundary by more than `slack` seconds on each side. */
export const crossesBoundary = (start: number, end: number, boundaries: readonly number[], slack = 3): boolean =>
  boundaries.some((b) => b > start + slack && b < end - slack);
