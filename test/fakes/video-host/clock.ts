// The fake's clock (settable by tests) and the Pacific day that YouTube's quota follows: daily
// quotas reset at midnight Pacific Time (America/Los_Angeles, so 07:00 or 08:00 UTC by season).

export interface Clock {
  /** epoch ms: the base time source plus everything advanced so far */
  now(): number;
  advance(ms: number): void;
}

export function createClock(base: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceTime takes a non-negative number of milliseconds');
      offset += ms;
    },
  };
}

const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

function pacificParts(epochMs: number): { y: number; m: number; d: number; h: number; min: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of PACIFIC.formatToParts(new Date(epochMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts['year']!, m: parts['month']!, d: parts['day']!, h: parts['hour']!, min: parts['minute']!, s: parts['second']! };
}

/** Pacific wall clock minus UTC at that instant, in ms (-7 h or -8 h). */
function pacificOffset(epochMs: number): number {
  const p = pacificParts(epochMs);
  const wall = Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s);
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/** The Pacific calendar date of an instant, YYYY-MM-DD. */
export function pacificDay(epochMs: number): string {
  const p = pacificParts(epochMs);
  return `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** Epoch ms of the first Pacific midnight after an instant. */
export function nextPacificMidnight(epochMs: number): number {
  const p = pacificParts(epochMs);
  const wallMidnight = Date.UTC(p.y, p.m - 1, p.d + 1);
  // Two passes: the offset at the answer may differ from today's on a DST change day.
  const first = wallMidnight - pacificOffset(epochMs);
  return wallMidnight - pacificOffset(first);
}
