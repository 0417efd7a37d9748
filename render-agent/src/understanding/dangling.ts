import { openingOf } from './text-features.ts';

/**
 * Kept generated text must read on its own: when grounding drops a sentence, the one after it may
 * open with a reference to it ("Also, …", "This means…", "He then…"), and a summary that opens
 * with "The clip also…" points at nothing. Applied to what grounding kept, in order: a connective
 * opening a sentence that starts the text or follows a dropped one is taken off ("Also, bees…" →
 * "Bees…"); a sentence that opens with a pronoun or demonstrative there is dropped with its
 * reason (it cannot be mended without guessing what it meant).
 */

export interface KeptSentence {
  text: string;
  /** Whether the sentence before it in the generated text was kept (false for the first). */
  followsKept: boolean;
}

/** "The clip also explains…" → "The clip explains…"; "Also, the …" → "The …". */
function withoutConnective(text: string): string {
  const framed = text.replace(/^(the (?:clip|talk|speaker|recording|video|part|section|segment|chapter)) (?:also|then|further) /i, '$1 ');
  if (framed !== text) return framed;
  const { word, kind } = openingOf(text);
  if (kind !== 'connective' && kind !== 'answer') return text;
  const rest = text
    .trim()
    .slice(word.length)
    .replace(/^[\s,;:–—-]+/, '');
  return rest ? rest[0]!.toUpperCase() + rest.slice(1) : '';
}

/** The sentences that read on their own (mended or kept), and those dropped with why. */
export function withoutDanglingOpenings(sentences: readonly KeptSentence[]): {
  kept: string[];
  /** For each kept sentence, its index in `sentences`. */
  keptFrom: number[];
  dropped: { sentence: string; reason: string }[];
} {
  const kept: string[] = [];
  const keptFrom: number[] = [];
  const dropped: { sentence: string; reason: string }[] = [];
  for (const [i, s] of sentences.entries()) {
    const isDetached = !s.followsKept || kept.length === 0;
    const text = isDetached ? withoutConnective(s.text) : s.text;
    if (!text) continue;
    if (isDetached && openingOf(text).kind === 'back_reference') {
      dropped.push({ sentence: s.text, reason: `opens with "${openingOf(text).word}", which refers to text that is not kept` });
      continue;
    }
    kept.push(text);
    keptFrom.push(i);
  }
  return { kept, keptFrom, dropped };
}
