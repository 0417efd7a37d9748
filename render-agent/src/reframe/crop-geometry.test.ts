import { describe, expect, it } from 'vitest';
import {
  centeredCropX,
  clampCropX,
  cropCenterForSubject,
  cropWindowSize,
  cropXForCenter,
  isVerticalSource,
  maxCropX,
  subjectShiftInSource,
} from './crop-geometry.ts';

describe('cropWindowSize', () => {
  it('takes the full height and an even 9:16 width', () => {
    expect(cropWindowSize(1280, 720)).toEqual({ width: 406, height: 720 });
    expect(cropWindowSize(1920, 1080)).toEqual({ width: 608, height: 1080 });
    expect(cropWindowSize(3840, 2160)).toEqual({ width: 1216, height: 2160 });
  });

  it('never exceeds the source width', () => {
    expect(cropWindowSize(600, 1080)).toEqual({ width: 600, height: 1080 });
  });

  it('cuts the feed shapes from the full height: 4:5 and 1:1', () => {
    expect(cropWindowSize(1920, 1080, 4 / 5)).toEqual({ width: 864, height: 1080 });
    expect(cropWindowSize(1920, 1080, 1)).toEqual({ width: 1080, height: 1080 });
    expect(cropWindowSize(1280, 720, 4 / 5)).toEqual({ width: 576, height: 720 });
    // A 4:3 source asked for a square: 720x720 of its 960x720.
    expect(cropWindowSize(960, 720, 1)).toEqual({ width: 720, height: 720 });
  });
});

describe('isVerticalSource', () => {
  it('is true at 9:16 and a little wider, false for landscape and square', () => {
    expect(isVerticalSource(1080, 1920)).toBe(true);
    expect(isVerticalSource(1080, 1900)).toBe(true);
    expect(isVerticalSource(720, 720)).toBe(false);
    expect(isVerticalSource(1280, 720)).toBe(false);
    // Against a feed shape: a 9:16 or square source is as narrow as 1:1, a 4:3 one is not.
    expect(isVerticalSource(1080, 1920, 1)).toBe(true);
    expect(isVerticalSource(720, 720, 1)).toBe(true);
    expect(isVerticalSource(960, 720, 1)).toBe(false);
    expect(isVerticalSource(1080, 1350, 4 / 5)).toBe(true);
    expect(isVerticalSource(1080, 1080, 4 / 5)).toBe(false);
  });
});

describe('crop offsets', () => {
  it('are even and clamped to [0, W − w]', () => {
    expect(clampCropX(101, 406, 1280)).toBe(102);
    expect(clampCropX(-50, 406, 1280)).toBe(0);
    expect(clampCropX(5000, 406, 1280)).toBe(874);
    // An odd room (W − w = 873) clamps to the even 872.
    expect(maxCropX(406, 1279)).toBe(872);
  });

  it('center a window on a point, clamped at the frame edges', () => {
    expect(cropXForCenter(640, 406, 1280)).toBe(438); // 640 − 203 = 437 → even 438
    expect(cropXForCenter(10, 406, 1280)).toBe(0);
    expect(cropXForCenter(1275, 406, 1280)).toBe(874);
    expect(centeredCropX(608, 1920)).toBe(656);
  });

  it('convert subject_x_offset from output pixels and move the window left of the subject', () => {
    const shift = subjectShiftInSource(108, 608, 1080);
    expect(shift).toBeCloseTo(60.8, 6);
    expect(cropCenterForSubject(1000, shift)).toBeCloseTo(939.2, 6);
    expect(subjectShiftInSource(0, 608, 1080)).toBe(0);
  });
});
