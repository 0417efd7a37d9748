import { describe, expect, it } from 'vitest';
import { CLIP_TARGETS, ClipTarget, clipTargetForCap, DEFAULT_CLIP_LENGTHS, DEFAULT_FALLBACK_LENGTHS, SHORTEST_CLIP_SECONDS } from './clip-targets.ts';
import { VERTICAL_PROFILES } from './profiles.ts';

describe('clip targets', () => {
  it('names three ranges, each ideal inside its own, the default the spec’s 2-5 minutes', () => {
    expect(ClipTarget.options).toEqual(['short', 'medium', 'long']);
    expect(CLIP_TARGETS.short).toMatchObject({ minSeconds: 15, maxSeconds: 60 });
    expect(CLIP_TARGETS.medium).toMatchObject({ minSeconds: 60, maxSeconds: 180 });
    expect(CLIP_TARGETS.long).toMatchObject({ minSeconds: 120, maxSeconds: 300 });
    for (const t of ClipTarget.options) {
      const l = CLIP_TARGETS[t];
      expect(l.idealSeconds).toBeGreaterThan(l.minSeconds);
      expect(l.idealSeconds).toBeLessThan(l.maxSeconds);
    }
    expect(DEFAULT_CLIP_LENGTHS).toMatchObject({ minSeconds: 120, maxSeconds: 300 });
    expect(DEFAULT_FALLBACK_LENGTHS).toMatchObject({ minSeconds: SHORTEST_CLIP_SECONDS, maxSeconds: 300 });
    expect(ClipTarget.safeParse('huge').success).toBe(false);
  });

  it('asks the short target for a profile that takes 60 s at most, and the default where a 2-minute clip fits the cap', () => {
    const byProfile = Object.fromEntries(Object.entries(VERTICAL_PROFILES).map(([name, p]) => [name, clipTargetForCap(p.maxSeconds)]));
    expect(byProfile).toEqual({ 'vidA-primary': null, 'vidA-primary-720p': null, 'vidB-reels': null, 'vidB-stories': 'short' });
    // Whatever a cap under 2 minutes asks, every candidate of it fits the cap (the point of asking).
    for (const cap of [60, 90, 119]) expect(CLIP_TARGETS[clipTargetForCap(cap)!].maxSeconds).toBeLessThanOrEqual(cap);
    expect(clipTargetForCap(120)).toBeNull();
  });
});
