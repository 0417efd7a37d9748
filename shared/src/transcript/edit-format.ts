import { attachesToPrevious } from './readable-cues.ts';
import { flattenWords, type Sentence, sentencesOf } from './sentences.ts';
import type { TranscriptV2, TranscriptWord } from './transcript-v2.ts';

/**
 * The `edit` transcript format: one line per sentence, `[NNNN] text`, where NNNN is the
 * sentence's 1-based number zero-padded to (at least) four digits and the text is its words
 * separated by single spaces (in every language, so that words can be deleted one by one). A
 * word is what a reader sees as one: Whisper's pieces that attach to the word before them
 * ("Two" "-man" "-eat", "it" "'s") are shown joined ("Two-man-eat", "it's") and are kept or
 * deleted together.
 * A caller edits it by deleting words, deleting whole lines and moving whole lines; anything
 * else (a new or changed word, a copied line) makes the edit invalid.
 */
export function toEdit(t: TranscriptV2): string {
  const words = flattenWords(t);
  const sentences = sentencesOf(t);
  const width = Math.max(4, String(sentences.length).length);
  const lines = sentences.map(
    (s) =>
      `${label(s.index + 1, width)} ${shownWords(words, s)
        .map((w) => w.text)
        .join(' ')}`,
  );
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

const label = (n: number, width: number): string => `[${String(n).padStart(width, '0')}]`;
/** A word as the edit shows it, with the indices (into `flattenWords`) of the pieces it joins. */
interface ShownWord {
  text: string;
  indices: number[];
}

function shownWords(words: readonly TranscriptWord[], s: Sentence): ShownWord[] {
  const out: ShownWord[] = [];
  for (let k = s.firstWord; k < s.endWord; k++) {
    const piece = words[k]!.word.trim();
    if (piece === '') continue;
    const last = out.at(-1);
    if (last && attachesToPrevious(piece)) {
      last.text += piece;
      last.indices.push(k);
    } else out.push({ text: piece, indices: [k] });
  }
  return out;
}

/** One line of an edit that cannot be applied, with why (shown to the caller, who fixes it). */
export interface EditProblem {
  /** 1-based line number in the submitted text. */
  line: number;
  text: string;
  reason: string;
}

/** Kept words of one edited line: indices into `flattenWords(t)`, ascending. */
export interface EditedLine {
  sentence: number;
  words: number[];
}

export type EditResult = { ok: true; lines: EditedLine[] } | { ok: false; problems: EditProblem[] };

const LINE = /^\[(\d{1,9})\](?:\s+(.*))?$/;

/**
 * A word as the edit compares it: without the punctuation around it, in lower case. Deleting
 * words moves punctuation and capitals ("bacteria." deleted leaves "acid."; a deleted first word
 * leaves "the" to open the line); neither changes what is said, and the output keeps the
 * transcript's own spelling of every word anyway.
 */
const core = (token: string): string =>
  token
    .normalize('NFC')
    .replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '')
    .toLocaleLowerCase();

/**
 * Checks an edited `edit` text against the transcript it came from and returns the kept words
 * line by line, in the edited order. Blank lines are ignored; a line reduced to its label keeps
 * nothing. Every problem is reported (not only the first), with its line number.
 */
export function parseEdit(t: TranscriptV2, text: string): EditResult {
  const words = flattenWords(t);
  const sentences = sentencesOf(t);
  const problems: EditProblem[] = [];
  const lines: EditedLine[] = [];
  const seen = new Map<number, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trim();
    if (line === '') return;
    const m = LINE.exec(line);
    if (!m) {
      problems.push({ line: lineNo, text: raw, reason: 'not of the form "[NNNN] text": keep each line\'s [NNNN] label as it came' });
      return;
    }
    const number = Number(m[1]);
    const sentence = sentences[number - 1];
    if (!sentence) {
      problems.push({ line: lineNo, text: raw, reason: `there is no sentence [${m[1]}] in this transcript (lines may be deleted or moved, not added)` });
      return;
    }
    const earlier = seen.get(number);
    if (earlier !== undefined) {
      problems.push({ line: lineNo, text: raw, reason: `sentence [${m[1]}] already appears on line ${earlier} (lines may be moved, not copied)` });
      return;
    }
    seen.set(number, lineNo);
    const original = shownWords(words, sentence);
    const kept: number[] = [];
    const cores = original.map((w) => core(w.text));
    let at = 0;
    // Punctuation alone is no word: "acid." may stay "acid." when the word after it goes.
    for (const token of (m[2] ?? '').split(/\s+/).filter((w) => core(w) !== '')) {
      while (at < original.length && cores[at] !== core(token)) at++;
      if (at === original.length) {
        problems.push({
          line: lineNo,
          text: raw,
          reason: `"${token}" is not a word of sentence [${m[1]}] at this place (words may only be deleted, not added, changed or reordered)`,
        });
        return;
      }
      kept.push(...original[at]!.indices);
      at++;
    }
    lines.push({ sentence: sentence.index, words: kept });
  });
  return problems.length ? { ok: false, problems } : { ok: true, lines };
}
