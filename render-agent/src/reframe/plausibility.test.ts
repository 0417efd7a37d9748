import { describe, expect, it } from 'vitest';
import { implausibleFace, implausibleTrack, PLAUSIBLE } from './plausibility.ts';

const face = { x: 100, y: 100, w: 60, h: 60 };
// BlazeFace's order: right eye, left eye, nose, mouth (frame pixels).
const landmarks = [
  [118, 120],
  [142, 120],
  [130, 135],
  [130, 148],
] as [number, number][];

describe('implausibleFace', () => {
  it('passes a square face of a plausible size with its landmarks where a face has them', () => {
    expect(implausibleFace(face, 640, landmarks)).toBeNull();
    expect(implausibleFace(face, 640)).toBeNull();
  });

  it('refuses a strip (the old detector on a test pattern: 197x720), a speck and a box wider than most of the frame', () => {
    expect(implausibleFace({ x: 0, y: 0, w: 197, h: 720 }, 1920)).toMatch(/not face-shaped/);
    expect(implausibleFace({ x: 0, y: 0, w: 6, h: 6 }, 640)).toMatch(/under 1.2 % of the frame/);
    expect(implausibleFace({ x: 0, y: 0, w: 500, h: 500 }, 640)).toMatch(/over 70 % of the frame/);
  });

  it('refuses landmarks no face has: outside the box, eyes together, the mouth above the eyes', () => {
    expect(implausibleFace(face, 640, [[10, 10], ...landmarks.slice(1)])).toMatch(/outside the box/);
    expect(implausibleFace(face, 640, [[129, 120], [131, 120], ...landmarks.slice(2)])).toMatch(/eyes 0.03 face widths apart/);
    expect(implausibleFace(face, 640, [landmarks[0]!, landmarks[1]!, landmarks[2]!, [130, 112]])).toMatch(/mouth not below the eyes/);
    // Eyes one above the other (the coffee beans of the evaluation's tuning control), or swapped.
    expect(implausibleFace(face, 640, [[118, 110], [134, 132], ...landmarks.slice(2)])).toMatch(/eyes at 54°/);
    expect(implausibleFace(face, 640, [landmarks[1]!, landmarks[0]!, ...landmarks.slice(2)])).toMatch(/eyes at 180°/);
    expect(implausibleFace(face, 640, [landmarks[0]!, landmarks[1]!, [130, 156], landmarks[3]!])).toMatch(/nose not between/);
  });
});

describe('implausibleTrack', () => {
  const at = (t: number) => ({ ...face, t, score: 0.9 });
  it('keeps a face seen in several samples of its shot', () => {
    expect(implausibleTrack([at(0), at(0.25), at(0.5)], 8)).toBeNull();
    // A shot of two samples: both are enough.
    expect(implausibleTrack([at(0), at(0.25)], 2)).toBeNull();
  });

  it('drops a flicker: too few detections, or too little of the shot', () => {
    expect(implausibleTrack([at(0), at(0.25)], 8)).toMatch(/seen in 2 of 8 samples/);
    expect(implausibleTrack([at(0), at(0.25), at(0.5)], 24)).toMatch(/under 30 %/);
    expect(PLAUSIBLE.minDetections).toBe(3);
  });

  it("drops a track whose median score is under the detector's bar", () => {
    const track = [0.7, 0.72, 0.9].map((score, i) => ({ ...at(i * 0.25), score }));
    expect(implausibleTrack(track, 3, 0.75)).toMatch(/median score 0.72 under 0.75/);
    expect(implausibleTrack(track, 3, 0.7)).toBeNull();
    expect(implausibleTrack(track, 3)).toBeNull();
  });
});
