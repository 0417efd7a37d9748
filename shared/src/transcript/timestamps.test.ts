import { describe, expect, it } from 'vitest';
import { formatMs, formatSrtTime, formatVttTime, secondsToMs } from './timestamps.ts';

describe('timestamps', () => {
  it('formats SRT and VTT separators', () => {
    expect(formatSrtTime(0)).toBe('00:00:00,000');
    expect(formatVttTime(0)).toBe('00:00:00.000');
    expect(formatSrtTime(61.5)).toBe('00:01:01,500');
    expect(formatVttTime(61.5)).toBe('00:01:01.500');
  });

  it('rounds to the nearest millisecond without carrying into a 4-digit field', () => {
    expect(formatSrtTime(0.9995)).toBe('00:00:01,000');
    expect(formatSrtTime(59.9996)).toBe('00:01:00,000');
    expect(formatSrtTime(3599.9999)).toBe('01:00:00,000');
    expect(formatSrtTime(1.0004)).toBe('00:00:01,000');
    // 0.1 + 0.2 is 0.30000000000000004 in floating point.
    expect(formatSrtTime(0.1 + 0.2)).toBe('00:00:00,300');
    expect(formatSrtTime(4.35)).toBe('00:00:04,350');
  });

  it('handles times of an hour and more, growing past 99 hours', () => {
    expect(formatSrtTime(3600)).toBe('01:00:00,000');
    expect(formatSrtTime(3723.456)).toBe('01:02:03,456');
    expect(formatVttTime(100 * 3600 + 1.5)).toBe('100:00:01.500');
  });

  it('clamps negatives to 0 and throws on NaN/Infinity', () => {
    expect(formatSrtTime(-0.0001)).toBe('00:00:00,000');
    expect(formatVttTime(-5)).toBe('00:00:00.000');
    expect(() => formatSrtTime(Number.NaN)).toThrow(RangeError);
    expect(() => formatVttTime(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('exposes integer-ms helpers', () => {
    expect(secondsToMs(1.2345)).toBe(1235);
    expect(formatMs(3_723_456, ',')).toBe('01:02:03,456');
  });
});
