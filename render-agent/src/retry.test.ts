import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './retry.ts';

describe('backoffDelayMs', () => {
  const mid = () => 0.5; // no jitter
  it('doubles from 500 ms and levels off at 30 s', () => {
    expect([0, 1, 2, 3, 6, 7, 50].map((n) => backoffDelayMs(n, undefined, mid))).toEqual([500, 1000, 2000, 4000, 30_000, 30_000, 30_000]);
  });
  it('jitters within ±20 %', () => {
    expect(backoffDelayMs(0, undefined, () => 0)).toBe(400);
    expect(backoffDelayMs(0, undefined, () => 1)).toBe(600);
  });
});
