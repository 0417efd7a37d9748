/**
 * Time as the agent uses it: the wall clock for timestamps and durations, and the timers behind
 * lease renewal, progress throttling and retry back-off. Everything that waits or stamps takes a
 * Clock, so tests drive it with a manual one (`manual-clock.ts`) instead of waiting on real time.
 */

declare const timerBrand: unique symbol;
/** Opaque: only the clock that made a timer can clear it. */
export type TimerHandle = { readonly [timerBrand]: true };

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(timer: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(timer: TimerHandle): void;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** `sleep` for any clock, built on its own timers so a manual clock's advance() wakes it. */
export function sleepOn(clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// Node's timer objects stand behind the opaque handle; the casts live here and nowhere else.
const asHandle = (t: NodeJS.Timeout): TimerHandle => t as unknown as TimerHandle;
const asTimeout = (h: TimerHandle): NodeJS.Timeout => h as unknown as NodeJS.Timeout;

/** Real time: Date.now and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => asHandle(setTimeout(fn, ms)),
  clearTimeout: (timer) => clearTimeout(asTimeout(timer)),
  setInterval: (fn, ms) => asHandle(setInterval(fn, ms)),
  clearInterval: (timer) => clearInterval(asTimeout(timer)),
  sleep: (ms, signal) => sleepOn(systemClock, ms, signal),
};
