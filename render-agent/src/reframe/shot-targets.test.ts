import { describe, expect, it } from 'vitest';
import { frameShots } from './shot-targets.ts';
import type { ShotSpeaking } from './speakers.ts';
import { describeSubjects, mainSubject } from './track.ts';

const W = 1280;
const box = (t: number, x: number, w: number) => ({ t, x, y: 100, w, h: w, score: 0.9 });
// s1: large, shot 2 only; s2: small, shot 1 only; s3: tiny, shot 1 only.
const subjects = describeSubjects(
  [[0, 0.5, 1, 1.5].map((t) => box(t, 100, 100)), [3, 3.5, 4, 4.5, 5].map((t) => box(t, 900, 200)), [0, 0.5].map((t) => box(t, 600, 40))],
  12,
  W * 720,
);
const shots = [
  { start: 0, end: 3 },
  { start: 3, end: 6 },
];

describe('frameShots', () => {
  it('frames each shot on its largest subject (auto), and says so', () => {
    const framed = frameShots(shots, subjects, null, 0, { frameWidth: W });
    expect(framed.map((s) => [s.subjectId, s.rule])).toEqual([
      ['s2', 'largest'],
      ['s1', 'largest'],
    ]);
    expect(framed[0]!.targets).toEqual([0, 0.5, 1, 1.5].map((t) => ({ t, x: 150 })));
  });

  it('frames the requested subject where it appears, the largest one elsewhere', () => {
    const framed = frameShots(shots, subjects, 's3', 0, { frameWidth: W });
    expect(framed.map((s) => [s.subjectId, s.rule])).toEqual([
      ['s3', 'subject_id'],
      ['s1', 'largest'],
    ]);
    expect(framed[0]!.targets.map((p) => p.x)).toEqual([620, 620]);
  });

  it('frames the one speaking over the largest, and keeps what speakers.ts found in the shot', () => {
    const speaking: ShotSpeaking = {
      scores: [
        { subject_id: 's2', score: 0.01, voiced_intervals: 6, unvoiced_intervals: 5 },
        { subject_id: 's3', score: 0.3, voiced_intervals: 6, unvoiced_intervals: 5 },
      ],
      speaker: 's3',
    };
    const framed = frameShots(shots, subjects, null, 0, { frameWidth: W, speaking: [speaking, undefined] });
    expect(framed.map((s) => [s.subjectId, s.rule])).toEqual([
      ['s3', 'speaking'],
      ['s1', 'largest'],
    ]);
    expect(framed[0]!.speaking).toBe(speaking);
    expect(framed[1]!.speaking).toBeUndefined();
    // A subject asked for still wins over the one speaking.
    expect(frameShots(shots, subjects, 's2', 0, { frameWidth: W, speaking: [speaking, undefined] })[0]).toMatchObject({ subjectId: 's2', rule: 'subject_id' });
  });

  it('moves the window left by the shift so the subject sits right of center', () => {
    expect(frameShots(shots, subjects, null, 30, { frameWidth: W })[1]!.targets[0]).toEqual({ t: 3, x: 970 });
  });

  it('leaves a shot without faces without a subject', () => {
    expect(frameShots([{ start: 0, end: 6 }], [], null, 0, { frameWidth: W })).toEqual([{ start: 0, end: 6, subjectId: null, rule: 'no_face', targets: [] }]);
  });
});

describe('mainSubject', () => {
  const times = [0, 1, 2, 3];
  it('takes the largest face when no other is about as large', () => {
    const two = describeSubjects([times.map((t) => box(t, 50, 200)), times.map((t) => box(t, 560, 150))], 4, W * 720);
    const m = mainSubject(two, 0, 4, true, W);
    expect([m.subject?.boxes[0]?.x, m.rule]).toEqual([50, 'largest']);
  });

  it('takes the most central of faces about as large (within a fifth of the largest area)', () => {
    // 200 px at the left edge against 190 px near the centre (0.90 of its area).
    const two = describeSubjects([times.map((t) => box(t, 20, 200)), times.map((t) => box(t, 560, 190))], 4, W * 720);
    const m = mainSubject(two, 0, 4, true, W);
    expect([m.subject?.boxes[0]?.x, m.rule]).toEqual([560, 'central']);
  });

  it('is no face in a shot without one', () => {
    expect(mainSubject(subjects, 6, 8, true, W)).toEqual({ subject: null, rule: 'no_face' });
  });
});
