import { describe, expect, it } from 'vitest';
import { EDIT_LIMITS, editCuts } from './edit-cuts.ts';
import { parseEdit, toEdit } from './edit-format.ts';
import type { TranscriptV2 } from './transcript-v2.ts';

/** Words 0.3 s long with 0.2 s of silence between them, starting at 1 s. */
function transcript(text: string, gap = 0.2): TranscriptV2 {
  let t = 1;
  const words = text.split(' ').map((word) => {
    const w = { start: t, end: Math.round((t + 0.3) * 1000) / 1000, word, probability: 0.9 };
    t = Math.round((t + 0.3 + gap) * 1000) / 1000;
    return w;
  });
  return { version: 2, language: 'en', duration: t + 1, segments: [{ id: 0, start: 1, end: t, text, words }] };
}

// Words 0-3, 4-9, 10-12, 13-15: word i spans [1 + 0.5 i, 1.3 + 0.5 i].
const t = transcript('Welcome to the show. Today we talk about honey bees. Bees make honey. Thanks for listening.');
const media = t.duration;

function cutsOf(text: string, tr = t, mediaSeconds = media) {
  const parsed = parseEdit(tr, text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return editCuts(tr, parsed.lines, mediaSeconds);
}

describe('editCuts', () => {
  it('the whole transcript is one cut, padded by 0.1 s at both ends', () => {
    expect(cutsOf(toEdit(t))).toEqual({ ok: true, cuts: [{ start: 0.9, end: 8.9, label: '[0001]' }], seconds: 8 });
  });

  it('a deleted line splits the cut; the pads stop at the deleted words', () => {
    const r = cutsOf('[0001] Welcome to the show.\n[0003] Bees make honey.\n');
    expect(r).toEqual({
      ok: true,
      cuts: [
        { start: 0.9, end: 2.9, label: '[0001]' },
        { start: 5.9, end: 7.4, label: '[0003]' },
      ],
      seconds: 3.5,
    });
  });

  it('a pad never reaches into a deleted word when words touch', () => {
    const tight = transcript('one two three four', 0);
    // Words: one [1, 1.3], two [1.3, 1.6], three [1.6, 1.9], four [1.9, 2.2].
    const r = cutsOf('[0001] one three\n', tight, tight.duration);
    expect(r).toMatchObject({
      ok: true,
      cuts: [
        { start: 0.9, end: 1.3 },
        { start: 1.6, end: 1.9 },
      ],
    });
  });

  it('moved lines keep the edited order; a line continuing the one before in the source joins its cut', () => {
    const r = cutsOf('[0003] Bees make honey.\n[0004] Thanks for listening.\n[0001] Welcome to the show.\n');
    expect(r).toMatchObject({
      ok: true,
      cuts: [
        { start: 5.9, end: 8.9, label: '[0003]' },
        { start: 0.9, end: 2.9, label: '[0001]' },
      ],
    });
  });

  it('deleted words inside a line split it into cuts of the neighbouring kept words', () => {
    const r = cutsOf('[0002] Today we about bees.\n');
    expect(r).toMatchObject({
      ok: true,
      cuts: [
        { start: 2.9, end: 3.9 },
        { start: 4.4, end: 4.9 },
        { start: 5.4, end: 5.9 },
      ],
    });
  });

  it('pads stop at 0 and at the end of the media', () => {
    const edge: TranscriptV2 = {
      version: 2,
      language: 'en',
      duration: 1,
      segments: [
        {
          id: 0,
          start: 0.02,
          end: 0.98,
          text: 'Hi there.',
          words: [
            { start: 0.02, end: 0.4, word: 'Hi', probability: 1 },
            { start: 0.5, end: 0.98, word: 'there.', probability: 1 },
          ],
        },
      ],
    };
    expect(cutsOf('[0001] Hi there.', edge, 1)).toMatchObject({ ok: true, cuts: [{ start: 0, end: 1 }] });
    // Whisper's last word may end past the probed media: the cut ends with the media.
    expect(cutsOf('[0001] there.', edge, 0.9)).toMatchObject({ ok: true, cuts: [{ start: 0.4, end: 0.9 }] });
  });

  it('cuts that touch in the source after padding are merged (a deleted word with no duration)', () => {
    const zero: TranscriptV2 = {
      version: 2,
      language: 'en',
      duration: 3,
      segments: [
        {
          id: 0,
          start: 0,
          end: 2,
          text: 'a b c.',
          words: [
            { start: 0.5, end: 1, word: 'a', probability: 1 },
            { start: 1, end: 1, word: 'b', probability: 1 },
            { start: 1.02, end: 1.5, word: 'c.', probability: 1 },
          ],
        },
      ],
    };
    expect(cutsOf('[0001] a c.', zero, 3)).toMatchObject({ ok: true, cuts: [{ start: 0.4, end: 1.6 }] });
  });

  it('refuses an edit that keeps nothing', () => {
    const r = cutsOf('[0001]\n[0002]\n');
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/keeps no word/) });
  });

  it(`refuses more than ${EDIT_LIMITS.cutsMax} cuts, naming the count`, () => {
    // 700 words in sentences of 10; keeping every other one makes 350 cuts.
    const long = transcript(Array.from({ length: 700 }, (_, i) => `w${i}${i % 10 === 9 ? '.' : ''}`).join(' '));
    const keep = (below: number) =>
      toEdit(long)
        .split('\n')
        .map((line) => line.replace(/ w(\d+)\.?/g, (w, n) => (Number(n) % 2 === 0 && Number(n) < below ? w : '')))
        .join('\n');
    const r = cutsOf(keep(700), long, long.duration);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/keeps 350 separate stretches .* at most 300 cuts/) });
    expect(cutsOf(keep(600), long, long.duration)).toMatchObject({ ok: true, cuts: { length: 300 } });
  });

  it('refuses more than 30 minutes of output, naming the length', () => {
    // 4000 words every 0.5 s: 33 min 20 s of speech.
    const long = transcript(Array.from({ length: 4000 }, (_, i) => `w${i}${i % 20 === 19 ? '.' : ''}`).join(' '));
    const r = cutsOf(toEdit(long), long, long.duration);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/keeps 33 min 20 s of the recording; .* at most 30 minutes/) });
  });
});
