import { describe, expect, it } from 'vitest';
import { formatBytes, formatClock, formatDuration, parseClock, parseSize, RateMeter } from './format.ts';

describe('units', () => {
  it('formats bytes, durations and clock times', () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(10 * 1024 ** 2), formatBytes(300 * 1024 ** 3)]).toEqual(['512 B', '1.50 KB', '10.0 MB', '300 GB']);
    expect([formatDuration(4.4), formatDuration(65), formatDuration(7380), formatDuration(Number.POSITIVE_INFINITY)]).toEqual(['4s', '1m05s', '2h03m', '--']);
    expect([formatClock(0), formatClock(75.5), formatClock(3725), formatClock(59.96)]).toEqual(['0:00', '1:15.5', '1:02:05', '1:00']);
  });

  it('reads sizes and clock times, refusing the unreadable', () => {
    expect([parseSize('4096'), parseSize('256K'), parseSize('1.5M'), parseSize('2mb'), parseSize('1G/s')]).toEqual([
      4096, 262144, 1572864, 2097152, 1073741824,
    ]);
    expect([parseSize('fast'), parseSize('0'), parseSize('-1K')]).toEqual([null, null, null]);
    expect([parseClock('12.5'), parseClock('1:05.5'), parseClock('1:02:05'), parseClock('0:59')]).toEqual([12.5, 65.5, 3725, 59]);
    expect([parseClock('1:60'), parseClock('1:60:00'), parseClock('-3'), parseClock('a')]).toEqual([null, null, null, null]);
  });
});

describe('RateMeter', () => {
  it('measures over a sliding window and estimates the time left', () => {
    const m = new RateMeter(2000);
    expect(m.rate()).toBe(0);
    expect(m.eta(100)).toBe(Number.POSITIVE_INFINITY);
    m.add(0, 0);
    m.add(1000, 1000);
    expect(m.rate()).toBe(1000);
    expect(m.eta(5000)).toBe(4);
    // It speeds up: the window forgets the slow start.
    m.add(2000, 2000);
    m.add(3000, 12_000);
    m.add(4000, 22_000);
    expect(m.rate()).toBe(10_000);
  });
});
