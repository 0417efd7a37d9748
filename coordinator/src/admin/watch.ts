import { isDeepStrictEqual } from 'node:util';

/** How often a live view is re-read from Postgres (the only source: any replica serves any console). */
export const WATCH_INTERVAL_MS = 1_000;

/**
 * A subscription's body: reads `load()` every interval and yields it when it changed (and once at
 * the start), until the client goes away. Polling Postgres keeps every replica's answer the same
 * and costs one read per second per open console view.
 */
export async function* watch<T>(load: () => Promise<T>, signal: AbortSignal | undefined, intervalMs = WATCH_INTERVAL_MS): AsyncGenerator<T> {
  let last: T | undefined;
  let first = true;
  while (!signal?.aborted) {
    const value = await load();
    if (first || !isDeepStrictEqual(value, last)) {
      first = false;
      last = value;
      yield value;
    }
    await sleep(intervalMs, signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
