import { joinWords as joinReadable } from './readable-cues.ts';
import type { TranscriptV2, TranscriptWord } from './transcript-v2.ts';

/** A sentence of the transcript: a run of consecutive words, with its span in the word list. */
export interface Sentence {
  /** 0-based, in transcript order. */
  index: number;
  start: number;
  end: number;
  text: string;
  /** Index of its first word in `flattenWords(t)`, and one past its last. */
  firstWord: number;
  endWord: number;
}

/** Every word of the transcript in order (segments concatenated). */
export const flattenWords = (t: TranscriptV2): TranscriptWord[] => t.segments.flatMap((s) => s.words);

/** Abbreviations whose period does not end a sentence (lower case, without the period). */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'e.g', 'i.e', 'no', 'vol', 'fig', 'approx', 'inc', 'ltd', 'co']);

/** A word that ends a sentence: terminal punctuation, optionally followed by closing quotes or brackets. */
export function endsSentence(word: string): boolean {
  const w = word.trim();
  if (!/[.!?…。！？](["'”’)\]]*)$/.test(w)) return false;
  if (/[!?…。！？]/.test(w.replace(/["'”’)\]]+$/, '').slice(-1))) return true;
  const bare = w
    .replace(/["'”’)\]]+$/, '')
    .replace(/\.$/, '')
    .replace(/^["'“‘([]+/, '')
    .toLowerCase();
  // "U.S." or "A." (an initial) are abbreviations unless followed by a long pause (handled by the caller).
  if (ABBREVIATIONS.has(bare) || /^[a-z]$/.test(bare) || /^([a-z]\.)+[a-z]$/.test(bare)) return false;
  return true;
}

export interface SentenceOptions {
  /** A silence this long between two words ends a sentence even without punctuation. @default 1.2 s */
  pauseSeconds?: number;
  /** A sentence longer than this is split at its longest inner pause. @default 30 s */
  maxSeconds?: number;
}

/**
 * How words join into text: without spaces for scripts that do not use them, and elsewhere as the
 * subtitles join them, a Whisper piece that attaches to the word before it ("-man", "'s") without a
 * space ("Two-man-eat", not "Two -man -eat"), so extractive titles, summaries and hooks read right.
 */
export function joinWords(words: readonly { word: string }[], language = 'en'): string {
  if (['zh', 'ja', 'th', 'lo', 'my', 'km', 'bo', 'yue'].includes(language)) {
    return words
      .map((w) => w.word.trim())
      .filter((w) => w !== '')
      .join('');
  }
  return joinReadable(words.map((w) => w.word));
}

/**
 * Sentences from the words: a sentence ends at a word with terminal punctuation (not an
 * abbreviation such as "Mr." or an initial), or at a pause of `pauseSeconds` or more (speech
 * without punctuation still splits); a run longer than `maxSeconds` is split at its longest
 * inner pause, so a run-on transcript cannot make one sentence of a whole talk. Every word
 * belongs to exactly one sentence, in order.
 */
export function sentencesOf(t: TranscriptV2, o: SentenceOptions = {}): Sentence[] {
  const pause = o.pauseSeconds ?? 1.2;
  const maxSeconds = o.maxSeconds ?? 30;
  const words = flattenWords(t);
  const spans: [number, number][] = [];
  let first = 0;
  for (let i = 0; i < words.length; i++) {
    const gap = i + 1 < words.length ? words[i + 1]!.start - words[i]!.end : Number.POSITIVE_INFINITY;
    if (endsSentence(words[i]!.word) || gap >= pause) {
      spans.push(...splitLong(words, first, i + 1, maxSeconds));
      first = i + 1;
    }
  }
  if (first < words.length) spans.push(...splitLong(words, first, words.length, maxSeconds));
  return spans.map(([a, b], index) => ({
    index,
    start: words[a]!.start,
    end: words[b - 1]!.end,
    text: joinWords(words.slice(a, b), t.language),
    firstWord: a,
    endWord: b,
  }));
}

function splitLong(words: readonly TranscriptWord[], a: number, b: number, maxSeconds: number): [number, number][] {
  if (b - a < 2 || words[b - 1]!.end - words[a]!.start <= maxSeconds) return [[a, b]];
  let cut = a + 1;
  let widest = -1;
  for (let i = a + 1; i < b; i++) {
    const gap = words[i]!.start - words[i - 1]!.end;
    if (gap > widest) {
      widest = gap;
      cut = i;
    }
  }
  return [...splitLong(words, a, cut, maxSeconds), ...splitLong(words, cut, b, maxSeconds)];
}
