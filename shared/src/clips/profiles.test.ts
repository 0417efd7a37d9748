import { describe, expect, it } from 'vitest';
import { aspectRatio, ClipAspect, outputSize, VERTICAL_PROFILES, VerticalProfile } from './profiles.ts';

describe('outputSize', () => {
  it('keeps the profile width and takes the height from the aspect', () => {
    expect(outputSize('vidA-primary')).toEqual({ width: 1080, height: 1920 });
    expect(outputSize('vidA-primary', '4:5')).toEqual({ width: 1080, height: 1350 });
    expect(outputSize('vidA-primary', '1:1')).toEqual({ width: 1080, height: 1080 });
    expect(outputSize('vidA-primary-720p', '4:5')).toEqual({ width: 720, height: 900 });
    expect(outputSize('vidA-primary-720p', '1:1')).toEqual({ width: 720, height: 720 });
  });

  it('is every profile’s own size at 9:16, and even in every aspect', () => {
    for (const p of VerticalProfile.options) {
      expect(outputSize(p, '9:16')).toEqual({ width: VERTICAL_PROFILES[p].width, height: VERTICAL_PROFILES[p].height });
      for (const a of ClipAspect.options) {
        const { width, height } = outputSize(p, a);
        expect((width % 2) + (height % 2)).toBe(0);
        expect(Math.abs(width / height - aspectRatio(a))).toBeLessThan(0.002);
      }
    }
  });
});
