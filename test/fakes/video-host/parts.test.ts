// The fake's building blocks: Pacific midnights across daylight-saving changes, multipart bodies.
import { describe, expect, it } from 'vitest';
import { nextPacificMidnight, pacificDay } from './clock.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';

describe('Pacific quota day', () => {
  it('resets at 08:00 UTC in winter and 07:00 UTC in summer', () => {
    expect(new Date(nextPacificMidnight(Date.UTC(2026, 0, 15, 20))).toISOString()).toBe('2026-01-16T08:00:00.000Z');
    expect(new Date(nextPacificMidnight(Date.UTC(2026, 6, 15, 20))).toISOString()).toBe('2026-07-16T07:00:00.000Z');
    expect(pacificDay(Date.UTC(2026, 6, 16, 6, 59))).toBe('2026-07-15');
    expect(pacificDay(Date.UTC(2026, 6, 16, 7, 0))).toBe('2026-07-16');
  });

  it('finds midnight on the days the clocks change', () => {
    // 2026-03-08 02:00 PST → PDT; 2026-11-01 02:00 PDT → PST.
    expect(new Date(nextPacificMidnight(Date.UTC(2026, 2, 8, 12))).toISOString()).toBe('2026-03-09T07:00:00.000Z');
    expect(new Date(nextPacificMidnight(Date.UTC(2026, 2, 7, 12))).toISOString()).toBe('2026-03-08T08:00:00.000Z');
    expect(new Date(nextPacificMidnight(Date.UTC(2026, 10, 1, 7, 30))).toISOString()).toBe('2026-11-02T08:00:00.000Z');
  });
});

describe('multipart/related', () => {
  it('cuts binary parts out as googleapis-common writes them', () => {
    const bytes = Buffer.from([0, 13, 10, 45, 45, 255]);
    const body = Buffer.concat([
      Buffer.from('--b1\r\ncontent-type: application/json\r\n\r\n{"snippet":{}}\r\n--b1\r\ncontent-type: video/mp4\r\n\r\n'),
      bytes,
      Buffer.from('\r\n--b1--'),
    ]);
    expect(boundaryOf('multipart/related; boundary=b1')).toBe('b1');
    const parts = parseMultipart(body, 'b1');
    expect(parts.map((p) => p.headers['content-type'])).toEqual(['application/json', 'video/mp4']);
    expect(parts[1]?.body.equals(bytes)).toBe(true);
  });
});
