import { sleepOn, type Clock, type TimerHandle } from './clock.ts';

/** A Clock that only moves when told to: tests of timer-driven code run instantly and in a fixed order. */
export interface ManualClock extends Clock {
  /**
   * Moves time forward by `ms`, running every timer that falls due on the way, earliest first
   * (intervals repeat). Before moving and after each timer it lets pending promise callbacks
   * run, so async work a timer starts (a heartbeat, a sleep's continuation) settles and may set
   * further timers that also run if they fall inside the window.
   */
  advance(ms: number): Promise<void>;
  /** How many timers are set and not yet fired or cleared (intervals count until cleared). */
  pending(): number;
}

interface Timer {
  id: number;
  dueAt: number;
  /** Repeat period for intervals; null for one-shot timers. */
  everyMs: number | null;
  fn: () => void;
}

// Yields to the event loop once: every queued microtask (promise callback) runs before it resumes.
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** @param startMs the epoch time `now()` starts at. @default 0 */
export function createManualClock(startMs = 0): ManualClock {
  let now = startMs;
  let nextId = 1;
  const timers = new Map<number, Timer>();

  const add = (fn: () => void, ms: number, repeat: boolean): TimerHandle => {
    // As in Node, a delay under 1 ms (or not a number) is 1 ms; an interval of 0 would never let time pass.
    const delay = Number.isFinite(ms) && ms >= 1 ? ms : 1;
    const timer: Timer = { id: nextId++, dueAt: now + delay, everyMs: repeat ? delay : null, fn };
    timers.set(timer.id, timer);
    return timer.id as unknown as TimerHandle;
  };
  const remove = (handle: TimerHandle) => void timers.delete(handle as unknown as number);

  const nextDue = (until: number): Timer | undefined => {
    let next: Timer | undefined;
    // Ties go to the timer created first (Map order).
    for (const t of timers.values()) if (t.dueAt <= until && (!next || t.dueAt < next.dueAt)) next = t;
    return next;
  };

  const clock: ManualClock = {
    now: () => now,
    setTimeout: (fn, ms) => add(fn, ms, false),
    clearTimeout: remove,
    setInterval: (fn, ms) => add(fn, ms, true),
    clearInterval: remove,
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
    async advance(ms) {
      const until = now + ms;
      // Work already under way (a promise the test just resolved) finishes before time moves.
      await settle();
      for (let t = nextDue(until); t; t = nextDue(until)) {
        now = t.dueAt;
        if (t.everyMs === null) timers.delete(t.id);
        else t.dueAt += t.everyMs;
        t.fn();
        await settle();
      }
      now = until;
      await settle();
    },
    pending: () => timers.size,
  };
  return clock;
}
