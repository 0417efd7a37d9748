import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './retry-delay.ts';

describe('retryDelayMs', () => {
  const config = { RETRY_BACKOFF_MS: 5000, RETRY_BACKOFF_MAX_MS: 60_000 };
  it('doubles per failure from the base, up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((n) => retryDelayMs(n, config))).toEqual([0, 5000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });
  it('is off with a zero base', () => {
    expect(retryDelayMs(3, { RETRY_BACKOFF_MS: 0, RETRY_BACKOFF_MAX_MS: 60_000 })).toBe(0);
  });
});
