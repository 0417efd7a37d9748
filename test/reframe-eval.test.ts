import { describe, expect, it } from 'vitest';
import { evaluateReframe } from '../scripts/eval-reframe.ts';
import type { ControlScore, PersonScore } from '../scripts/eval/reframe-score.ts';

/**
 * The short slice of `npm run eval:reframe` that runs in `npm test`: BlazeFace with `follow` on
 * the tuning part's smallest face (the astronaut at 4 % of a 1080p frame's width, walking across
 * grass), its no-face control (coffee beans, where the detector sees a face-like pattern) and the
 * two held-out controls that made subjects before the close read (a rocket, a cat), and two
 * held-out two-person shots (the smaller one speaking while the larger one chews in the silences;
 * a voice off screen), each planned by the agent's own planReframe and scored against where the
 * face to keep really is. The bars
 * are the issue's: the face inside the crop on at least 95 % of frames, no frame-to-frame move
 * over 2.5 % of the crop width, no subject and no crop motion on the control.
 */
describe('reframing evaluation, short slice', () => {
  it('follows a face of 4 % of the frame width and finds no subject where there is no face', async () => {
    const rows = await evaluateReframe({
      detectors: ['blazeface'],
      modes: ['follow'],
      only: ['astronaut-walk-4', 'coffee', 'rocket', 'cat', 'chew-newton-gauss', 'voiceover-newton-gauss'],
    });
    const person = rows.find((r) => r.shot === 'astronaut-walk-4')!.score as PersonScore;
    const control = rows.find((r) => r.shot === 'coffee')!.score as ControlScore;
    console.info(`reframe slice: ${JSON.stringify({ person, control })}`);
    expect(person.inside).toBeGreaterThanOrEqual(0.95);
    expect(person.largestMove).toBeLessThanOrEqual(0.025);
    expect(control).toEqual({ subjects: 0, motion: 0 });
    // The two held-out controls BlazeFace took for faces in a tile (a rocket's windows, a cat): the close read rejects them.
    for (const shot of ['rocket', 'cat']) expect(rows.find((r) => r.shot === shot)!.score, shot).toEqual({ subjects: 0, motion: 0 });
    // The document says why the window stayed centred.
    expect(rows.find((r) => r.shot === 'coffee')!.because).toMatch(/^no face-like subject in 7 samples read .*: the window stays centred$/);
    expect(rows.find((r) => r.shot === 'astronaut-walk-4')!.because).toMatch(/^s1: the clip's dominant face/);
    // Adaptive sampling: the still control is read once a second (6 s: 7 of its 24 samples), the walk on every sample.
    expect(rows.find((r) => r.shot === 'coffee')!.reads).toBe(7);
    expect(rows.find((r) => r.shot === 'astronaut-walk-4')!.reads).toBeGreaterThanOrEqual(23);
    // Two people: the smaller one speaks while the larger one's mouth moves only in the silences; the
    // crop keeps the one speaking. With a voice off screen and no mouth moving, the larger one.
    const chew = rows.find((r) => r.shot === 'chew-newton-gauss')!;
    expect((chew.score as PersonScore).inside, chew.because ?? '').toBeGreaterThanOrEqual(0.95);
    expect(chew.because).toMatch(/: the face speaking \(/);
    const voiceover = rows.find((r) => r.shot === 'voiceover-newton-gauss')!;
    expect((voiceover.score as PersonScore).inside, voiceover.because ?? '').toBeGreaterThanOrEqual(0.95);
    expect(voiceover.because).toMatch(/dominant face.*no face was found speaking/);
  }, 240_000);
});
