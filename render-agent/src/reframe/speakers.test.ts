import { describe, expect, it } from 'vitest';
import { type SampleLooks, speakersByShot } from './speakers.ts';
import { SPEAKING } from './speaking.ts';
import { describeSubjects } from './track.ts';

const RATE = 8000;
const N = 24; // samples, 4 a second: 6 s
const t = (i: number) => i / 4;
const boxA = { x: 100, y: 100, w: 80, h: 80 };
const boxB = { x: 900, y: 100, w: 120, h: 120 };
// Both faces read once a second (samples 0, 4, 8, …): every box a subject has is a read's.
const reads = Array.from({ length: N / 4 }, (_, k) => 4 * k);
const subjects = describeSubjects(
  [reads.map((i) => ({ ...boxA, t: t(i), score: 0.9 })), reads.map((i) => ({ ...boxB, t: t(i), score: 0.9 }))],
  reads.length,
  1920 * 1080,
);
const idOf = (box: typeof boxA) => subjects.find((s) => s.boxes[0]!.x === box.x)!.id;
/** Voice in [1, 2.5) and [3.5, 5) s, quiet elsewhere. */
const voicedAt = (s: number) => (s >= 1 && s < 2.5) || (s >= 3.5 && s < 5);
const audio = new Int16Array(6 * RATE).map((_, i) => (voicedAt(i / RATE) ? Math.round(6000 * Math.sin(i / 2)) : (i % 5) - 2));
const patch = (v: number) => new Float32Array(SPEAKING.patch.w * SPEAKING.patch.h).fill(v);

/** Looks where A's mouth flips at every voiced sample (and, if `chewing`, B's at every quiet one). */
function looks(o: { chewing?: boolean; misaligned?: number } = {}): SampleLooks[] {
  return Array.from({ length: N }, (_, i) => {
    const readIndex = 4 * Math.floor(i / 4);
    const open = (who: 'A' | 'B') => (who === 'A' ? voicedAt(t(i)) : !!o.chewing && !voicedAt(t(i))) && i % 2 === 1;
    const look = (who: 'A' | 'B') => ({ mouth: patch(open(who) ? 1 : 0), reference: patch(0) });
    return {
      index: i,
      t: t(i),
      readIndex,
      readT: t(readIndex),
      faces: [
        { box: boxA, look: look('A') },
        { box: boxB, look: look('B') },
      ],
    };
  });
}
const shots = [{ start: 0, end: 6 }];
const readsAt = new Map(reads.map((i) => [i, [boxA, boxB]]));

describe('speakersByShot', () => {
  it('finds the face whose mouth moves with the voice, though another is larger', () => {
    const [s] = speakersByShot({ shots, subjects, looks: looks(), readsAt, audio, rate: RATE });
    expect(s!.speaker).toBe(idOf(boxA));
    const a = s!.scores.find((x) => x.subject_id === idOf(boxA))!;
    const b = s!.scores.find((x) => x.subject_id === idOf(boxB))!;
    expect(a.score!).toBeGreaterThan(0.3);
    expect(b.score).toBe(0);
    expect(a.voiced_intervals).toBeGreaterThanOrEqual(SPEAKING.minIntervals);
    expect(a.unvoiced_intervals).toBeGreaterThanOrEqual(SPEAKING.minIntervals);
  });

  it('is not fooled by a mouth that moves only in the silences', () => {
    const [s] = speakersByShot({ shots, subjects, looks: looks({ chewing: true }), readsAt, audio, rate: RATE });
    expect(s!.speaker).toBe(idOf(boxA));
    expect(s!.scores.find((x) => x.subject_id === idOf(boxB))!.score!).toBeLessThan(0);
  });

  it('names no one without sound, and says so', () => {
    const [s] = speakersByShot({ shots, subjects, looks: looks(), readsAt, audio: null, rate: RATE });
    expect(s).toMatchObject({ speaker: null, reason: 'no_audio' });
  });

  it('skips looks taken where the face no longer was (its own read found it elsewhere)', () => {
    // Every sample was read and found A 30 px away from the box its look used: no interval of A counts.
    const moved = new Map(Array.from({ length: N }, (_, i) => [i, [{ ...boxA, x: boxA.x + 30 }, boxB]]));
    const [s] = speakersByShot({ shots, subjects, looks: looks(), readsAt: moved, audio, rate: RATE });
    expect(s!.scores.find((x) => x.subject_id === idOf(boxA))).toMatchObject({ score: null, voiced_intervals: 0, unvoiced_intervals: 0 });
    expect(s!.speaker).toBeNull();
  });

  it('judges only shots with several subjects', () => {
    const one = describeSubjects([reads.map((i) => ({ ...boxA, t: t(i), score: 0.9 }))], reads.length, 1920 * 1080);
    expect(speakersByShot({ shots, subjects: one, looks: looks(), readsAt, audio, rate: RATE })).toEqual([undefined]);
  });
});
