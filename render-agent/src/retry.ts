/**
 * Back-off for calls whose answer must not be lost (complete/fail): quick retries first, then
 * a slow steady retry forever, because a terminal result dropped on the floor means a job
 * redone from scratch after its lease runs out.
 */
export interface BackoffPolicy {
  /** First delay. @default 500 ms */
  initialMs: number;
  /** Ceiling the doubling reaches, then stays at. @default 30 s */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };

/** Delay before retry number `retry` (0-based): doubling, capped, with ±20 % jitter so a fleet does not retry in lockstep. */
export function backoffDelayMs(retry: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(retry, 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}
