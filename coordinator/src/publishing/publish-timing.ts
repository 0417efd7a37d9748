/**
 * When a publish step runs again. Backoff: 2 s × 2^(attempt-1), capped at 5 min, times a jitter
 * of 0.5-1.5 so workflows that failed together do not return together. Quota: the host's daily
 * quota resets at midnight Pacific time (YouTube Data API), plus a minute of margin.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 5 * 60_000);
  return Math.round(base * (0.5 + random()));
}

const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** The next midnight in America/Los_Angeles after `now`, plus one minute. */
export function nextQuotaWindow(now: Date): Date {
  const p = Object.fromEntries(PACIFIC.formatToParts(now).map((x) => [x.type, Number(x.value)])) as Record<string, number>;
  const localAsUtc = Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!, p['second']!);
  // Pacific local time minus UTC (negative), at whole seconds; the same offset is assumed at midnight (a DST night is off by an hour at most).
  const offset = localAsUtc - Math.floor(now.getTime() / 1000) * 1000;
  const midnight = Date.UTC(p['year']!, p['month']! - 1, p['day']! + 1) - offset;
  return new Date(midnight + 60_000);
}
