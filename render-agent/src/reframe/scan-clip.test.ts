import { describe, expect, it } from 'vitest';
import { buildScanArgs } from './scan-clip.ts';

describe('buildScanArgs', () => {
  const args = buildScanArgs({
    source: '/work/a b/-source',
    start: 12.5,
    duration: 30,
    rate: { interval: 0.25, rational: '20/5' },
    sample: { width: 640, height: 360 },
    scene: { width: 320, height: 180 },
  });
  const after = (flag: string) => args[args.indexOf(flag) + 1];

  it('seeks on the input and reads only a local file under the input guard', () => {
    const input = args.indexOf('-i');
    expect(after('-i')).toBe('file:/work/a b/-source');
    expect(args.indexOf('-ss')).toBeLessThan(input);
    expect(args.indexOf('-t')).toBeLessThan(input);
    expect(after('-ss')).toBe('12.5');
    expect(after('-protocol_whitelist')).toBe('file');
    expect(args.indexOf('-format_whitelist')).toBeLessThan(input);
  });

  it('samples RGB frames to stdout and scores scenes on a second branch', () => {
    const graph = after('-filter_complex')!;
    expect(graph).toContain('fps=fps=20/5,scale=640:360');
    expect(graph).toContain('format=rgb24[frames]');
    expect(graph).toContain("select='gt(scene,0.3)',showinfo,nullsink");
    expect(after('-map')).toBe('[frames]');
    expect(args.slice(-3)).toEqual(['-f', 'rawvideo', 'pipe:1']);
  });
});
