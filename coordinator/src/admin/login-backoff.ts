import type { Clock } from '../lib/clock.ts';

/** At most this many client addresses are remembered; the oldest go first (a flood of addresses cannot grow memory). */
const MAX_TRACKED = 10_000;

export interface LoginBackoff {
  /** Seconds this address must still wait before its next log-in, or null. */
  waitSeconds(ip: string): number | null;
  /** A refused log-in: the first is free (a mistyped token, tried again at once), then the address waits 1 s, 2, 4 … at most `maxMs`. */
  failed(ip: string): void;
  /** A log-in that worked clears the address's record. */
  succeeded(ip: string): void;
}

/**
 * Back-off for operator log-in per client address, in this process's memory (per replica, like
 * the rate limits). A token guesser waits twice as long after each refusal; an operator who
 * mistyped once may try again at once. Log-in has this and its own rate-limit bucket, so neither failed
 * log-ins nor callers creating sessions from the same address lock the other out.
 */
export function createLoginBackoff(clock: Clock, opts: { baseMs?: number; maxMs?: number } = {}): LoginBackoff {
  const baseMs = opts.baseMs ?? 1000;
  const maxMs = opts.maxMs ?? 60_000;
  const byIp = new Map<string, { failures: number; until: number }>();
  return {
    waitSeconds(ip) {
      const r = byIp.get(ip);
      const left = r ? r.until - clock.now().getTime() : 0;
      return left > 0 ? Math.ceil(left / 1000) : null;
    },
    failed(ip) {
      const failures = (byIp.get(ip)?.failures ?? 0) + 1;
      byIp.delete(ip);
      if (byIp.size >= MAX_TRACKED) byIp.delete(byIp.keys().next().value!);
      const waitMs = failures < 2 ? 0 : Math.min(maxMs, baseMs * 2 ** (failures - 2));
      byIp.set(ip, { failures, until: clock.now().getTime() + waitMs });
    },
    succeeded(ip) {
      byIp.delete(ip);
    },
  };
}
