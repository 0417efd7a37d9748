import type { TranscriptWord } from '@cutroom/shared/transcript/transcript-v2';
import { isContentWord, tokenize } from './text-features.ts';

/**
 * Recognition garbage in titles and hooks: words Whisper was unsure of. A misheard name or noun
 * ("MySQL" for a bicycle maker, "mice" for a chess master) reads as nonsense at the top of a
 * post, so a title or hook avoids the words the recognizer heard below UNSURE_BELOW: the
 * extractive texts skip them (extractive.ts), a generated title or hook that repeats one is
 * dropped for its extractive text (candidate-texts.ts). Only content words count: a misheard
 * "the" or "on" does not change what a title names, and counting them would rule out most
 * sentences as hooks.
 */

/**
 * Below this probability a content word is one the recognizer was unsure of. Measured on tiny.en
 * (CPU, int8, beam 5, as the agent runs it) over the five espeak-ng topic talks of the test
 * harness and the five LibriVox utterances of pocketsphinx-testdata, aligned with their reference
 * texts (2,099 words): of the 958 content words that match the reference, the median probability
 * is 0.96 and 7.6 % fall below 0.5 (5.5 % below 0.4, 9.9 % below 0.6); of the 41 content words
 * that are plainly another word (hand-labelled, spelling and number variants left out: "MySQL",
 * "mice", "carrocan", "Reisville", "dogalise", "skirt"), 33 fall below 0.5 (26 below 0.4, 38
 * below 0.6). 0.5 keeps most garbage out while a clip keeps clean sentences to choose from.
 */
export const UNSURE_BELOW = 0.5;

/** A content word (lower case, as `tokenize` gives it) heard only below UNSURE_BELOW, with its best probability. */
export interface UnsureWord {
  word: string;
  probability: number;
}

/** The content tokens of one transcript word that the recognizer was unsure of (empty when it was sure, or for a function word). */
export const unsureTokensOf = (w: Pick<TranscriptWord, 'word' | 'probability'>): string[] =>
  w.probability < UNSURE_BELOW ? tokenize(w.word).filter(isContentWord) : [];

/** Whether this occurrence of a word is one to keep out of a title or hook. */
export const isUnsure = (w: Pick<TranscriptWord, 'word' | 'probability'>): boolean => unsureTokensOf(w).length > 0;

/**
 * The content words of a clip heard below UNSURE_BELOW everywhere they occur in it, in order of
 * first occurrence. A word also heard clearly elsewhere in the clip is not one: the recognizer
 * knew it, and a title may name it.
 */
export function unsureWordsOf(words: readonly Pick<TranscriptWord, 'word' | 'probability'>[]): UnsureWord[] {
  const best = new Map<string, number>();
  for (const w of words) {
    for (const token of tokenize(w.word).filter(isContentWord)) best.set(token, Math.max(best.get(token) ?? 0, w.probability));
  }
  return [...best].filter(([, p]) => p < UNSURE_BELOW).map(([word, probability]) => ({ word, probability }));
}

/**
 * Why a title or hook must not be kept: the unsure words of its clip it repeats, with their
 * probabilities; null when it uses none.
 */
export function unsureWordsReason(text: string, unsure: readonly UnsureWord[]): string | null {
  const tokens = new Set(tokenize(text));
  const used = unsure.filter((u) => tokens.has(u.word));
  if (used.length === 0) return null;
  const list = used.map((u) => `“${u.word}” (${u.probability.toFixed(2)})`).join(', ');
  return `repeats ${used.length === 1 ? 'a word' : 'words'} the recognizer was unsure of: ${list}, below ${UNSURE_BELOW}`;
}
