import { describe, expect, it } from 'vitest';
import { backoffMs, nextQuotaWindow } from './publish-timing.ts';

describe('publish timing', () => {
  it('backs off exponentially with jitter, capped at 5 minutes', () => {
    expect(backoffMs(1, () => 0.5)).toBe(2_000);
    expect(backoffMs(3, () => 0.5)).toBe(8_000);
    expect(backoffMs(30, () => 0.5)).toBe(300_000);
    expect(backoffMs(1, () => 0)).toBe(1_000);
    expect(backoffMs(1, () => 0.999)).toBeLessThanOrEqual(3_000);
  });

  it('waits for the next midnight in Pacific time (PST and PDT)', () => {
    // 2026-11-24 10:00 UTC = 02:00 PST (UTC-8): next midnight PST = 2026-11-25 08:00 UTC.
    expect(nextQuotaWindow(new Date('2026-11-24T10:00:00Z')).toISOString()).toBe('2026-11-25T08:01:00.000Z');
    // 2026-07-01 06:59 UTC = 23:59 PDT (UTC-7) on June 30: next midnight = 07:00 UTC.
    expect(nextQuotaWindow(new Date('2026-07-01T06:59:00Z')).toISOString()).toBe('2026-07-01T07:01:00.000Z');
  });
});
