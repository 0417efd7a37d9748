/**
 * Word-level features of English transcript text shared by scoring, query matching and the
 * extractive texts: tokens, stop words, a light stemmer, and the opening-word lists that tell a
 * sentence leaning on earlier context. Deliberately small and rule-based: the embeddings carry the
 * meaning; these only add what embeddings miss (exact terms, how a sentence opens).
 */

/** Function words: never content, never a title's edge, never a lexical match. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each even every few for from further get gets got had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just let like made make makes many may me might more most much must my myself no nor ' +
    'not now of off on once one only or other our ours ourselves out over own quite rather really same say says said she should so some ' +
    'still such than that the their theirs them themselves then there these they this those through thus to too under until up upon us ' +
    'very was we were what when where which while who whom why will with within without would yet you your yours yourself yourselves ' +
    "it's don't can't won't isn't aren't wasn't weren't i'm you're we're they're that's there's what's let's i've you've we've they've " +
    "i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll um uh yeah oh okay ok well"
  ).split(' '),
);

/** Openers that continue an earlier thought ("And then…", "But…", "So…"). */
const CONNECTIVES = new Set([
  'and',
  'but',
  'so',
  'because',
  'also',
  'then',
  'however',
  'which',
  'or',
  'plus',
  'anyway',
  'therefore',
  'thus',
  'hence',
  'besides',
  'although',
  'though',
  'still',
  'otherwise',
  'meanwhile',
  'instead',
  'nor',
  'yet',
  'furthermore',
  'moreover',
]);

/** Openers whose referent is usually earlier in the talk. */
const BACK_REFERENCES = new Set(['he', 'she', 'it', "it's", 'they', "they're", 'them', 'him', 'her', 'his', 'their', 'this', 'that', 'these', 'those']);

/** Answer particles: the sentence replies to something said before. */
const ANSWERS = new Set(['yes', 'no', 'yeah', 'yep', 'nope', 'right', 'exactly', 'sure', 'okay', 'ok', 'well', 'true', 'absolutely']);

/** Words of a strong or surprising claim (hook signals). */
const CLAIM_WORDS = new Set([
  'never',
  'always',
  'best',
  'worst',
  'biggest',
  'greatest',
  'secret',
  'mistake',
  'surprising',
  'truth',
  'nobody',
  'everyone',
  'everybody',
  'only',
  'first',
  'most',
  'hardest',
  'cheapest',
  'oldest',
  'impossible',
  'wrong',
  'myth',
  'actually',
  'deadly',
  'breakthrough',
  'problem',
  'threat',
]);

const NUMBER_WORDS = new Set([
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'twelve',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'hundred',
  'thousand',
  'million',
  'billion',
  'percent',
]);

/** Lower-case word tokens (letters, digits, inner apostrophes), punctuation dropped. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? []).map((w) => w.replace('’', "'"));
}

export const isStopWord = (token: string): boolean => STOP_WORDS.has(token);

/** A content word: not a stop word and longer than two characters (or a number). */
export const isContentWord = (token: string): boolean => !STOP_WORDS.has(token) && (token.length > 2 || /^\d+$/.test(token));

/**
 * A light suffix-stripping stemmer (a small subset of Porter's step 1): plural and verb endings
 * collapse so "bees"/"bee", "baking"/"bake", "openings"/"opening" match; the stem keeps at least
 * three letters. Enough for matching a query against a transcript, not a linguistic analysis.
 */
export function stem(token: string): string {
  let w = token.replace(/'s$/, '');
  if (w.length <= 3 || /^\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  for (const suffix of ['ingly', 'edly', 'ing', 'ed', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // "hopp(ing)" → "hop"; "bak(ing)" stays "bak" (so "bake" → "bak" below too).
      if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** Stems of a text's content words, in order (duplicates kept). */
export const contentStems = (text: string): string[] => tokenize(text).filter(isContentWord).map(stem);

/** How a sentence opens, as far as depending on earlier context goes. */
export interface Opening {
  /** The first word, lower case ('' for an empty sentence). */
  word: string;
  kind: 'connective' | 'back_reference' | 'answer' | 'clean';
}

export function openingOf(text: string): Opening {
  const word = tokenize(text)[0] ?? '';
  if (CONNECTIVES.has(word)) return { word, kind: 'connective' };
  if (ANSWERS.has(word)) return { word, kind: 'answer' };
  // A demonstrative counts too: "This velocipede…" and "This is why…" both point back.
  if (BACK_REFERENCES.has(word)) return { word, kind: 'back_reference' };
  return { word, kind: 'clean' };
}

/** Hook signals of one sentence. */
export interface HookSignals {
  isQuestion: boolean;
  hasNumber: boolean;
  /** A claim word such as "never", "best", "secret". */
  claimWord: string | null;
  addressesYou: boolean;
  words: number;
}

export function hookSignalsOf(text: string): HookSignals {
  const tokens = tokenize(text);
  return {
    isQuestion: /\?["'”’)\]]*\s*$/.test(text.trim()),
    hasNumber: tokens.some((t) => /\d/.test(t) || NUMBER_WORDS.has(t)),
    claimWord: tokens.find((t) => CLAIM_WORDS.has(t)) ?? null,
    addressesYou: tokens.some((t) => t === 'you' || t === 'your' || t === "you're" || t === "you've"),
    words: tokens.length,
  };
}

/**
 * How hook-like a sentence is by its wording alone, 0..1: a question (0.35), a number (0.2), a
 * claim word (0.2), addressing the listener (0.1), and a length a listener takes in at once
 * (6-20 words: 0.15; longer sentences lose it gradually, very short ones are fragments).
 */
export function hookWordingOf(s: HookSignals): number {
  const length = s.words < 4 ? 0 : s.words <= 20 ? 1 : Math.max(0, 1 - (s.words - 20) / 15);
  return (s.isQuestion ? 0.35 : 0) + (s.hasNumber ? 0.2 : 0) + (s.claimWord ? 0.2 : 0) + (s.addressesYou ? 0.1 : 0) + 0.15 * length;
}
