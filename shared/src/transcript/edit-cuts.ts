import type { EditedLine } from './edit-format.ts';
import { flattenWords } from './sentences.ts';
import type { TranscriptV2, TranscriptWord } from './transcript-v2.ts';

/** The spec's limits on one edit (Limits: "edit-from-transcript"); the text size is LIMITS.editTextMaxBytes. */
export const EDIT_LIMITS = {
  cutsMax: 300,
  outputMaxSeconds: 30 * 60,
} as const;

export interface EditCutOptions {
  /**
   * Kept around each run of words, so that a word is not clipped where Whisper placed its edge a
   * little early or late (its word times are good to about a tenth of a second). Never reaches
   * into a word the edit deleted, before 0 or past the media. @default 0.1 s
   */
  padSeconds?: number;
  /**
   * Two cuts that follow each other in the source with less than this between them become one
   * cut: at 20+ fps that is under a frame, so the join could not be rendered anyway, and no
   * deleted word fits in it audibly. @default 0.05 s
   */
  mergeGapSeconds?: number;
}

/** One cut of an edit, in source seconds; `label` names the edit line it starts on (`[0007]`). */
export interface EditCut {
  start: number;
  end: number;
  label: string;
}

export type EditCutsResult = { ok: true; cuts: EditCut[]; seconds: number } | { ok: false; error: string };

const ms = (t: number) => Math.round(t * 1000) / 1000;
const minutes = (s: number) => `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;

/**
 * A valid edit (parseEdit's lines, in the edited order) as the list of source ranges to play one
 * after another. Kept words that are neighbours in the source (consecutive word indices, within
 * a line or across lines that continue each other) are one cut; each cut runs from its first
 * word's start to its last word's end, widened by the pad on both sides as far as the deleted
 * words beside it allow; cuts that then touch in the source are merged. Refused, with a message
 * for the caller that names the figure: an edit that keeps no word, more than 300 cuts, more
 * than 30 minutes of output.
 */
export function editCuts(t: TranscriptV2, lines: readonly EditedLine[], mediaSeconds: number, o: EditCutOptions = {}): EditCutsResult {
  const pad = o.padSeconds ?? 0.1;
  const mergeGap = o.mergeGapSeconds ?? 0.05;
  const words = flattenWords(t);
  const kept = lines.flatMap((l) => l.words.map((w) => ({ word: w, line: l.sentence })));
  if (kept.length === 0) {
    return { ok: false, error: 'the edit keeps no word: keep at least one line (or one word) of the transcript' };
  }

  // Runs of source-adjacent words (blank words in between do not break a run: the edit format skips them).
  const runs: { first: number; last: number; line: number }[] = [];
  for (const k of kept) {
    const run = runs.at(-1);
    if (run && k.word > run.last && onlyBlankBetween(words, run.last, k.word)) run.last = k.word;
    else runs.push({ first: k.word, last: k.word, line: k.line });
  }

  const cuts: EditCut[] = [];
  for (const run of runs) {
    const cut = padded(words, run.first, run.last, pad, mediaSeconds);
    const label = `[${String(run.line + 1).padStart(4, '0')}]`;
    const prev = cuts.at(-1);
    // Later in the source and (nearly) touching: one cut. An overlap only comes from Whisper's overlapping word times.
    if (prev && cut.start > prev.start && cut.end > prev.end && cut.start - prev.end < mergeGap) prev.end = cut.end;
    else cuts.push({ ...cut, label });
  }

  if (cuts.length > EDIT_LIMITS.cutsMax) {
    return {
      ok: false,
      error: `the edit keeps ${cuts.length} separate stretches of the recording; one edit_from_transcript makes at most ${EDIT_LIMITS.cutsMax} cuts: delete fewer single words between the ones you keep, or split the edit over several jobs`,
    };
  }
  const seconds = ms(cuts.reduce((sum, c) => sum + (c.end - c.start), 0));
  if (seconds > EDIT_LIMITS.outputMaxSeconds) {
    return {
      ok: false,
      error: `the edit keeps ${minutes(seconds)} of the recording; one edit_from_transcript outputs at most ${EDIT_LIMITS.outputMaxSeconds / 60} minutes: delete more, or split the edit over several jobs`,
    };
  }
  return { ok: true, cuts, seconds };
}

const onlyBlankBetween = (words: readonly TranscriptWord[], a: number, b: number): boolean => {
  for (let i = a + 1; i < b; i++) if (words[i]!.word.trim() !== '') return false;
  return true;
};

/**
 * The source range of words first…last with the pad: the start moves back by at most `pad` but
 * not before the end of the word before it (deleted here, or at least not part of this cut) nor
 * before 0; the end moves on by at most `pad` but not past the start of the word after it nor
 * past the media. Whisper's words may overlap a little; a pad then is 0, never negative.
 */
function padded(words: readonly TranscriptWord[], first: number, last: number, pad: number, mediaSeconds: number): { start: number; end: number } {
  // A word placed past the media (Whisper's last times can stray) still gets its last sliver.
  const start = Math.min(words[first]!.start, Math.max(0, mediaSeconds - 0.04));
  const end = Math.min(Math.max(words[last]!.end, start), mediaSeconds);
  const before = first > 0 ? words[first - 1]!.end : 0;
  const after = last + 1 < words.length ? words[last + 1]!.start : mediaSeconds;
  const s = Math.max(0, Math.min(start, Math.max(start - pad, before)));
  const e = Math.min(mediaSeconds, Math.max(end, Math.min(end + pad, after)));
  // A word that Whisper gave no duration still gets a sliver, so the cut is never empty.
  return { start: ms(s), end: ms(e > s ? e : Math.min(mediaSeconds, s + 0.04)) };
}
