import { describe, expect, it } from 'vitest';
import type { CropPoint } from '@cutroom/shared/clips/subjects-v1';
import { type CenterTarget, FOLLOW_CONSTANTS, followPath, medianCenter, steadyPath } from './crop-path.ts';

const W = 1280;
const CW = 406;
const FPS = 25;

/** The path expanded to one x per frame (points only mark changes). */
function perFrame(path: readonly CropPoint[], frames: number): number[] {
  const xs: number[] = [];
  let i = 0;
  for (let n = 0; n < frames; n++) {
    while (i + 1 < path.length && path[i + 1]!.t <= n / FPS + 1e-9) i++;
    xs.push(path[i]!.x);
  }
  return xs;
}

const series = (seconds: number, every: number, x: (t: number) => number): CenterTarget[] =>
  Array.from({ length: Math.floor(seconds / every) + 1 }, (_, i) => ({ t: i * every, x: x(i * every) }));

const follow = (targets: CenterTarget[], seconds: number, shots = [{ start: 0, end: seconds }]) =>
  followPath({
    shots: shots.map((s) => ({ ...s, targets: targets.filter((p) => p.t >= s.start && p.t < s.end) })),
    fps: FPS,
    cropWidth: CW,
    sourceWidth: W,
    sampleInterval: 0.25,
  });

describe('steadyPath', () => {
  it('puts one window per shot on the median target, centered for a shot without one', () => {
    const path = steadyPath(
      [
        {
          start: 0,
          end: 3,
          targets: [
            { t: 0, x: 300 },
            { t: 1, x: 320 },
            { t: 2, x: 900 },
          ],
        },
        { start: 3, end: 6, targets: [] },
      ],
      CW,
      W,
    );
    expect(path).toEqual([
      { t: 0, x: 118, y: 0 }, // 320 − 203 = 117 → even 118
      { t: 3, x: 438, y: 0 },
    ]);
  });

  it('medianCenter averages the middle pair', () => {
    expect(
      medianCenter([
        { t: 0, x: 1 },
        { t: 1, x: 5 },
        { t: 2, x: 3 },
        { t: 3, x: 10 },
      ]),
    ).toBe(4);
    expect(medianCenter([])).toBeNull();
  });
});

describe('followPath', () => {
  it('does not move while the subject jitters inside the dead zone', () => {
    const jitter = series(4, 0.25, (t) => 640 + 0.08 * CW * Math.sin(t * 7));
    const xs = perFrame(follow(jitter, 4), 100);
    expect(new Set(xs).size).toBe(1);
  });

  it('moves smoothly to a subject that jumped, under the speed limit, and settles', () => {
    const targets = series(6, 0.25, (t) => (t < 1 ? 400 : 800));
    const xs = perFrame(follow(targets, 6), 150);
    const steps = xs.slice(1).map((x, i) => Math.abs(x - xs[i]!));
    expect(Math.max(...steps)).toBeLessThanOrEqual((FOLLOW_CONSTANTS.maxSpeed * CW) / FPS + 2);
    expect(xs[0]).toBe(198); // 400 − 203 → even
    expect(Math.abs(xs.at(-1)! - (800 - CW / 2))).toBeLessThanOrEqual(FOLLOW_CONSTANTS.settle * CW + 2);
    // No overshoot past the new target's window by more than the settle band.
    expect(Math.max(...xs)).toBeLessThanOrEqual(800 - CW / 2 + FOLLOW_CONSTANTS.settle * CW + 2);
  });

  it('keeps up with a subject moving at constant speed, with a bounded lag', () => {
    const targets = series(7, 0.25, (t) => 250 + 120 * t);
    const xs = perFrame(follow(targets, 7), 175);
    for (let n = 50; n < 175; n++) expect(Math.abs(xs[n]! + CW / 2 - (250 + (120 * n) / FPS))).toBeLessThan(0.2 * CW);
  });

  it('anticipates: on a steady walk the window is centred on the subject, not trailing it by 2/ω seconds', () => {
    const targets = series(7, 0.25, (t) => 250 + 120 * t);
    const offsets = (lead: number) => {
      const path = followPath({
        shots: [{ start: 0, end: 7, targets }],
        fps: FPS,
        cropWidth: CW,
        sourceWidth: W,
        sampleInterval: 0.25,
        constants: { ...FOLLOW_CONSTANTS, lead },
      });
      const xs = perFrame(path, 175);
      // From 3 s (up to speed) to 6 s (before the frame's right edge clamps it).
      return xs.slice(75, 150).map((x, i) => x + CW / 2 - (250 + (120 * (i + 75)) / FPS));
    };
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    // Without a lead the window trails by about 2/ω × speed = 40 px; with the default lead it is centred.
    expect(mean(offsets(0))).toBeLessThan(-30);
    expect(Math.abs(mean(offsets(FOLLOW_CONSTANTS.lead)))).toBeLessThan(0.02 * CW);
  });

  it('holds the last position across a gap without detections', () => {
    const targets = [...series(1, 0.25, () => 300), ...series(1, 0.25, () => 1000).map((p) => ({ ...p, t: p.t + 4 }))];
    const xs = perFrame(follow(targets, 5), 125);
    // From 1 s to 4 s nothing was seen: the window stays at the first position.
    for (let n = 25; n < 100; n++) expect(xs[n]).toBe(xs[0]);
    expect(xs[124]).toBeGreaterThan(xs[0]!);
  });

  it('jumps at a shot change and clamps at the frame edges', () => {
    const targets = [...series(2.75, 0.25, () => 50), ...series(2.75, 0.25, () => 1270).map((p) => ({ ...p, t: p.t + 3 }))];
    const path = follow(targets, 6, [
      { start: 0, end: 3 },
      { start: 3, end: 6 },
    ]);
    expect(path).toEqual([
      { t: 0, x: 0, y: 0 },
      { t: 3, x: 874, y: 0 },
    ]);
  });

  it('keeps a shot without a subject centered', () => {
    expect(follow([], 2)).toEqual([{ t: 0, x: 438, y: 0 }]);
  });
});
