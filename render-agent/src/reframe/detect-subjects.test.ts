import { describe, expect, it } from 'vitest';
import { toSourceBox } from './detect-subjects.ts';

describe('toSourceBox', () => {
  it('scales a sample-pixel box to source pixels', () => {
    expect(toSourceBox({ x: 100, y: 50, w: 40, h: 45, score: 0.87654 }, 3, 3, 1920, 1080)).toEqual({ x: 300, y: 150, w: 120, h: 135, score: 0.877 });
  });

  it('clips a box that leaves the frame and drops one with nothing left', () => {
    expect(toSourceBox({ x: -10, y: 300, w: 40, h: 40, score: 0.9 }, 2, 2, 1280, 720)).toEqual({ x: 0, y: 600, w: 60, h: 80, score: 0.9 });
    expect(toSourceBox({ x: 700, y: 10, w: 40, h: 40, score: 0.9 }, 2, 2, 1280, 720)).toBeNull();
  });
});
