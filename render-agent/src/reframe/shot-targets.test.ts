import { describe, expect, it } from 'vitest';
import { frameShots } from './shot-targets.ts';
import { describeSubjects } from './track.ts';

const box = (t: number, x: number, w: number) => ({ t, x, y: 100, w, h: w, score: 0.9 });
// s1: large, shot 2 only; s2: small, shot 1 only; s3: tiny, shot 1 only.
const subjects = describeSubjects(
  [[0, 0.5, 1, 1.5].map((t) => box(t, 100, 100)), [3, 3.5, 4, 4.5, 5].map((t) => box(t, 900, 200)), [0, 0.5].map((t) => box(t, 600, 40))],
  12,
  1280 * 720,
);
const shots = [
  { start: 0, end: 3 },
  { start: 3, end: 6 },
];

describe('frameShots', () => {
  it('frames each shot on its dominant subject (auto)', () => {
    const framed = frameShots(shots, subjects, null, 0);
    expect(framed.map((s) => s.subjectId)).toEqual(['s2', 's1']);
    expect(framed[0]!.targets).toEqual([0, 0.5, 1, 1.5].map((t) => ({ t, x: 150 })));
  });

  it('frames the requested subject where it appears, the dominant one elsewhere', () => {
    const framed = frameShots(shots, subjects, 's3', 0);
    expect(framed.map((s) => s.subjectId)).toEqual(['s3', 's1']);
    expect(framed[0]!.targets.map((p) => p.x)).toEqual([620, 620]);
  });

  it('moves the window left by the shift so the subject sits right of center', () => {
    expect(frameShots(shots, subjects, null, 30)[1]!.targets[0]).toEqual({ t: 3, x: 970 });
  });

  it('leaves a shot without faces without a subject', () => {
    expect(frameShots([{ start: 0, end: 6 }], [], null, 0)).toEqual([{ start: 0, end: 6, subjectId: null, targets: [] }]);
  });
});
