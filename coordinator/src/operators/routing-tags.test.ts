import { describe, expect, it } from 'vitest';
import { missingTags, parseRoutingTags, requiredTags } from './routing-tags.ts';

describe('routing tags', () => {
  it('parses kinds and job types, merging repeated keys', () => {
    expect(parseRoutingTags('')).toEqual({});
    expect(parseRoutingTags(' cut=gpu ; transcribe=region-eu,pool:a;cut=nvenc;')).toEqual({ cut: ['gpu', 'nvenc'], transcribe: ['region-eu', 'pool:a'] });
    expect(parseRoutingTags('extract_vertical_clip=gpu')).toEqual({ extract_vertical_clip: ['gpu'] });
  });

  it('refuses unknown keys, bad tags and malformed entries', () => {
    expect(() => parseRoutingTags('render=gpu')).toThrow(/neither a work kind/);
    expect(() => parseRoutingTags('cut=GPU!')).toThrow(/must match/);
    expect(() => parseRoutingTags('cut')).toThrow(/is not <kind/);
  });

  it('a job needs its kind tags plus its type tags', () => {
    const r = parseRoutingTags('cut=gpu;extract_vertical_clip=nvenc');
    expect(requiredTags(r, 'cut', 'extract_vertical_clip')).toEqual(['gpu', 'nvenc']);
    expect(requiredTags(r, 'cut', 'extract_clip')).toEqual(['gpu']);
    expect(requiredTags(r, 'transcribe', 'transcribe')).toEqual([]);
    expect(missingTags(['gpu', 'nvenc'], ['gpu', 'region-eu'])).toEqual(['nvenc']);
    expect(missingTags([], [])).toEqual([]);
  });
});
