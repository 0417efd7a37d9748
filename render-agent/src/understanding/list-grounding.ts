import type { Embedder } from './embedder.ts';
import { groundTitle, type TranscriptIndex } from './grounding.ts';

/**
 * An overview sentence that names what a recording covers ("It covers beekeeping, the history of
 * the bicycle and sourdough bread.") is supported by the whole recording, never by the one to three
 * consecutive sentences groundText compares it with, so that rule drops it. Read as a list, it is
 * checked item by item: every item must pass groundTitle against the whole transcript (its words
 * occur there, or it is close in meaning to a passage with half its words; its numbers occur), and
 * the words that frame the list ("the recording covers topics such as") need no support. An
 * invented item fails the sentence.
 */

/** Words that frame a list of topics rather than claim anything (lower case). */
const FRAME_WORDS = new Set([
  ...['the', 'a', 'an', 'this', 'it', 'its', 'also', 'then', 'finally', 'and', 'or', 'as', 'such', 'well', 'from', 'to', 'of', 'with', 'on'],
  ...['recording', 'spoken', 'talk', 'speaker', 'audio', 'text', 'lecture', 'presentation', 'episode', 'podcast', 'video', 'parts', 'part', 'sections'],
  ...['covers', 'cover', 'covered', 'discusses', 'discussed', 'explains', 'describes', 'includes', 'including', 'include', 'touches', 'moves'],
  ...['is', 'are', 'about', 'topics', 'topic', 'subjects', 'various', 'several', 'range', 'themes', 'goes', 'on', 'into', 'at', 'looks'],
]);

/** Fewest items for a sentence to be read as a list. */
const MIN_ITEMS = 3;

/** The list's items with their framing words off; null when the sentence is not a list of MIN_ITEMS or more. */
export function listItems(sentence: string): string[] | null {
  const body = sentence.replace(/[.!?]+$/, '');
  const parts = body.split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/i).map((p) => p.trim());
  if (parts.length < MIN_ITEMS) return null;
  const items = parts
    .map((p) =>
      p
        .split(/\s+/)
        .filter((w) => !FRAME_WORDS.has(w.toLowerCase().replace(/[^a-z]/g, '')))
        .join(' '),
    )
    .filter((p) => /[\p{L}\p{N}]/u.test(p));
  return items.length >= MIN_ITEMS ? items : null;
}

/** Whether every item of a list sentence is supported by the transcript; the first failing item's reason otherwise. */
export async function groundList(sentence: string, index: TranscriptIndex, embedder: Embedder): Promise<{ isGrounded: boolean; reason: string }> {
  const items = listItems(sentence);
  if (!items) return { isGrounded: false, reason: 'not a list' };
  for (const item of items) {
    const g = await groundTitle(item, index, embedder);
    if (!g.isGrounded) return { isGrounded: false, reason: `the item "${item}": ${g.reason}` };
  }
  return { isGrounded: true, reason: `each of its ${items.length} items is in the transcript` };
}
