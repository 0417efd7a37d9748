import { describe, expect, it } from 'vitest';
import { describeSubjects, dominantSubject, type FrameFaces, linkDetections, shotIndexAt } from './track.ts';

const face = (x: number, y: number, w: number, score = 0.8) => ({ x, y, w, h: w, score });
const AREA = 1280 * 720;

describe('linkDetections', () => {
  it('keeps two faces apart and follows each as it moves', () => {
    const frames: FrameFaces[] = Array.from({ length: 6 }, (_, i) => ({ t: i * 0.5, faces: [face(900 - 10 * i, 300, 120), face(100 + 30 * i, 300, 100)] }));
    const tracks = linkDetections(frames, { cuts: [] });
    expect(tracks).toHaveLength(2);
    expect(tracks[0]!.map((b) => b.x)).toEqual([900, 890, 880, 870, 860, 850]);
    expect(tracks[1]!.map((b) => b.x)).toEqual([100, 130, 160, 190, 220, 250]);
  });

  it('never continues a subject across a cut, nor after a long gap', () => {
    const frames: FrameFaces[] = [0, 0.5, 1, 1.5, 2, 2.5, 5, 5.5, 6].map((t) => ({ t, faces: [face(400, 300, 120)] }));
    const tracks = linkDetections(frames, { cuts: [1.2] });
    expect(tracks.map((tr) => tr.map((b) => b.t))).toEqual([
      [0, 0.5, 1],
      [1.5, 2, 2.5],
      [5, 5.5, 6],
    ]);
  });

  it('drops a flicker (seen in 2 of 8 samples) while keeping the face seen throughout', () => {
    const frames: FrameFaces[] = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5].map((t, i) => ({
      t,
      faces: i === 2 || i === 3 ? [face(400, 300, 120), face(1000, 50, 40, 0.7)] : [face(400, 300, 120)],
    }));
    expect(linkDetections(frames, { cuts: [] }).map((tr) => tr.length)).toEqual([8]);
  });

  it('drops a one-frame detection as a false positive where the shot had frames enough', () => {
    const frames: FrameFaces[] = [0, 0.5, 1, 1.5].map((t, i) => ({
      t,
      faces: i === 2 ? [face(400, 300, 120), face(1000, 50, 40, 0.51)] : [face(400, 300, 120)],
    }));
    expect(linkDetections(frames, { cuts: [] })).toHaveLength(1);
  });

  it('does not link faces of very different sizes', () => {
    const frames: FrameFaces[] = [0, 0.5, 1, 1.5, 2, 2.5].map((t, i) => ({ t, faces: [face(400, 300, i % 2 === 0 ? 200 : 60)] }));
    expect(linkDetections(frames, { cuts: [] })).toHaveLength(2);
  });
});

describe('describeSubjects', () => {
  it('numbers subjects by dominance (presence × mean area), not by first appearance', () => {
    const small = [0, 0.5, 1, 1.5].map((t) => ({ ...face(100, 100, 50), t }));
    const large = [1, 1.5].map((t) => ({ ...face(700, 100, 200), t }));
    const subjects = describeSubjects([small, large], 4, AREA);
    expect(subjects.map((s) => [s.id, s.presence, s.boxes[0]!.x])).toEqual([
      ['s1', 0.5, 700],
      ['s2', 1, 100],
    ]);
    expect(subjects[0]!.mean_area).toBeCloseTo(40000 / AREA, 6);
    expect(subjects[0]!.kind).toBe('face');
  });

  it('gives each subject its median detection score as its confidence', () => {
    const scores = [0.9, 0.7, 0.95, 0.8, 0.85];
    const boxes = scores.map((score, i) => ({ ...face(100, 100, 80, score), t: i * 0.5 }));
    expect(describeSubjects([boxes], 5, AREA)[0]!.confidence).toBe(0.85);
    // An even count takes the lower middle: one more sample of 0.6 gives 0.8.
    expect(describeSubjects([[...boxes, { ...face(100, 100, 80, 0.6), t: 3 }]], 6, AREA)[0]!.confidence).toBe(0.8);
  });
});

describe('dominantSubject', () => {
  it('takes the largest summed area within the shot, null for a shot without faces', () => {
    const subjects = describeSubjects([[0, 0.5, 1].map((t) => ({ ...face(100, 100, 100), t })), [2, 2.5].map((t) => ({ ...face(600, 100, 150), t }))], 6, AREA);
    expect(dominantSubject(subjects, 0, 1.8, false)?.boxes[0]?.x).toBe(100);
    expect(dominantSubject(subjects, 1.8, 3, true)?.boxes[0]?.x).toBe(600);
    expect(dominantSubject(subjects, 3, 4, true)).toBeNull();
  });

  it('shotIndexAt counts the cuts at or before t', () => {
    expect(shotIndexAt(0, [1, 2])).toBe(0);
    expect(shotIndexAt(1, [1, 2])).toBe(1);
    expect(shotIndexAt(5, [1, 2])).toBe(2);
  });
});
