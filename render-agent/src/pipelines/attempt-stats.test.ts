import { describe, expect, it } from 'vitest';
import { elapsedSeconds } from './attempt-stats.ts';

describe('elapsedSeconds', () => {
  it('is the seconds since the start, never negative', () => {
    expect(elapsedSeconds({ now: () => 12_500 }, 10_000)).toBe(2.5);
    expect(elapsedSeconds({ now: () => 9_000 }, 10_000)).toBe(0);
  });
});
