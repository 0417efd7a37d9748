import { describe, expect, it } from 'vitest';
import { parseCutLine, shotsFromCuts } from './shots.ts';

describe('parseCutLine', () => {
  it('reads pts_time from a showinfo frame line (ffmpeg 5.1)', () => {
    const line =
      '[Parsed_showinfo_6 @ 0x5593f7eb21c0] n:   0 pts:  38400 pts_time:3       pos:    99763 fmt:yuv420p sar:1/1 s:320x180 i:P iskey:0 type:P checksum:BFD051A8';
    expect(parseCutLine(line)).toBe(3);
    expect(parseCutLine('[Parsed_showinfo_2 @ 0x1] n:  12 pts: 1234 pts_time:4.9366 pos: 1 fmt:yuv420p')).toBeCloseTo(4.9366, 6);
  });

  it('ignores showinfo configuration lines and other output', () => {
    expect(parseCutLine('[Parsed_showinfo_6 @ 0x5593f7eb21c0] config in time_base: 1/12800, frame_rate: 25/1')).toBeNull();
    expect(parseCutLine('[Parsed_showinfo_6 @ 0x5593f7eb21c0] color_range:tv color_space:unknown')).toBeNull();
    expect(parseCutLine('frame=   12 fps=0.0 q=-0.0 Lsize=    8100kB time=00:00:06.00')).toBeNull();
  });
});

describe('shotsFromCuts', () => {
  it('turns cuts into shots covering the clip', () => {
    expect(shotsFromCuts([3], 6)).toEqual({
      cuts: [3],
      shots: [
        { start: 0, end: 3 },
        { start: 3, end: 6 },
      ],
    });
    expect(shotsFromCuts([], 6)).toEqual({ cuts: [], shots: [{ start: 0, end: 6 }] });
  });

  it('drops cuts that would leave a shot shorter than the minimum', () => {
    expect(shotsFromCuts([0.2, 2, 2.1, 2.3, 4, 5.8], 6).cuts).toEqual([2, 4]);
  });
});
