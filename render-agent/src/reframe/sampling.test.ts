import { describe, expect, it } from 'vitest';
import { expectedSamples, FrameAssembler, MAX_SAMPLES, sampleRate, scaledSize } from './sampling.ts';

describe('sampleRate', () => {
  it('samples at the preferred rate while the cap allows', () => {
    expect(sampleRate(30, 4)).toEqual({ interval: 0.25, rational: '20/5' });
    expect(sampleRate(30, 2)).toEqual({ interval: 0.5, rational: '20/10' });
  });

  it('stretches the interval (in 1/20 s steps) so no clip takes more than MAX_SAMPLES', () => {
    for (const seconds of [120, 217, 240]) {
      const rate = sampleRate(seconds, 4);
      expect(expectedSamples(seconds, rate)).toBeLessThanOrEqual(MAX_SAMPLES);
      expect(Math.round(rate.interval * 20)).toBeCloseTo(rate.interval * 20, 9);
    }
    expect(sampleRate(240, 4).interval).toBe(0.5);
  });
});

describe('scaledSize', () => {
  it('bounds the longest side, keeps the aspect, stays even', () => {
    expect(scaledSize(1920, 1080, 640)).toEqual({ width: 640, height: 360 });
    expect(scaledSize(1080, 1920, 640)).toEqual({ width: 360, height: 640 });
    expect(scaledSize(320, 240, 640)).toEqual({ width: 320, height: 240 });
  });
});

describe('FrameAssembler', () => {
  it('joins and splits chunks into whole frames', () => {
    const a = new FrameAssembler(4);
    expect(a.push(Uint8Array.of(1, 2, 3))).toEqual([]);
    const frames = a.push(Uint8Array.of(4, 5, 6, 7, 8, 9, 10));
    expect(frames.map((f) => [...f])).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    expect(a.push(Uint8Array.of(11, 12)).map((f) => [...f])).toEqual([[9, 10, 11, 12]]);
  });
});
