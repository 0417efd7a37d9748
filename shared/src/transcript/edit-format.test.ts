import { describe, expect, it } from 'vitest';
import { parseEdit, toEdit } from './edit-format.ts';
import type { TranscriptV2 } from './transcript-v2.ts';

function transcript(text: string): TranscriptV2 {
  let t = 0;
  const words = text.split(' ').map((word) => {
    const w = { start: t, end: t + 0.3, word, probability: 0.9 };
    t += 0.4;
    return w;
  });
  return { version: 2, language: 'en', duration: t, segments: [{ id: 0, start: 0, end: t, text, words }] };
}

const t = transcript('Welcome to the show. Today we talk about bees. Bees make honey. Thanks for listening.');

describe('edit format', () => {
  it("shows Whisper's attached pieces as one word, kept or deleted together", () => {
    // Whisper splits "Two-man-eat" and "it's" into pieces that attach to the word before.
    const pieces = transcript("Two -man -eat sharks swim. it 's late.");
    expect(toEdit(pieces)).toBe("[0001] Two-man-eat sharks swim.\n[0002] it's late.\n");
    expect(parseEdit(pieces, '[0001] Two-man-eat swim.\n[0002] late.')).toEqual({
      ok: true,
      lines: [
        { sentence: 0, words: [0, 1, 2, 4] },
        { sentence: 1, words: [7] },
      ],
    });
    expect(parseEdit(pieces, '[0001] Two sharks swim.')).toMatchObject({
      ok: false,
      problems: [{ line: 1, reason: expect.stringContaining('"Two" is not a word') }],
    });
  });

  it('renders one [NNNN] line per sentence', () => {
    expect(toEdit(t)).toBe('[0001] Welcome to the show.\n[0002] Today we talk about bees.\n[0003] Bees make honey.\n[0004] Thanks for listening.\n');
  });

  it('accepts deleted words, deleted lines and moved lines, returning kept word indices in the edited order', () => {
    const r = parseEdit(t, '[0003] Bees honey.\n\n[0001] Welcome to the show.\n[0004]\n');
    expect(r).toEqual({
      ok: true,
      lines: [
        { sentence: 2, words: [9, 11] },
        { sentence: 0, words: [0, 1, 2, 3] },
        { sentence: 3, words: [] },
      ],
    });
    expect(parseEdit(t, toEdit(t))).toMatchObject({ ok: true });
  });

  it('takes punctuation and capitals moved by a deletion as the same words, and punctuation alone as no word', () => {
    // "bees." deleted from "… about bees.": the caller keeps the full stop; "Today" deleted: "we" opens the line.
    const r = parseEdit(t, '[0002] We talk about. —\n[0003] bees, honey!\n');
    expect(r).toEqual({
      ok: true,
      lines: [
        { sentence: 1, words: [5, 6, 7] },
        { sentence: 2, words: [9, 11] },
      ],
    });
    expect(parseEdit(t, '[0003] Bees make money.\n')).toMatchObject({ ok: false });
  });

  it('refuses added, changed, reordered or copied words and unknown lines, naming every failing line', () => {
    const r = parseEdit(t, '[0001] Welcome to the best show.\n[0002] about Today\n[0002] Today\n[0009] Hi.\nno label\n[0003] Bees make honey.');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.line, p.reason.split(' (')[0]])).toEqual([
      [1, '"best" is not a word of sentence [0001] at this place'],
      [2, '"Today" is not a word of sentence [0002] at this place'],
      [3, 'sentence [0002] already appears on line 2'],
      [4, 'there is no sentence [0009] in this transcript'],
      [5, 'not of the form "[NNNN] text": keep each line\'s [NNNN] label as it came'],
    ]);
  });
});
