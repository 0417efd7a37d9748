import type { HeartbeatResponse } from '@cutroom/proto';
import type { Clock } from '../clock.ts';
import { AttemptAbortedError, StaleAttemptError } from '../errors.ts';
import type { Logger } from '../logger.ts';

export interface LeaseKeeperOptions {
  /** From the assignment; renewed at half of it, so one lost heartbeat does not lose the lease. */
  leaseMs: number;
  /** The coordinator heartbeat for this attempt's fence. */
  heartbeat: () => Promise<HeartbeatResponse>;
  /** JetStream `msg.working()`: keeps the wake-up from being redelivered while we run. */
  working: () => void;
  /** Subscribes to the attempt's cancel subject; returns the unsubscribe. */
  subscribeCancel: (onCancel: () => void) => () => void;
  /** Aborts the attempt's AbortController (reaches ffmpeg and the Whisper child). */
  abort: (reason: AttemptAbortedError) => void;
  /** Drives the renewal interval. */
  clock: Clock;
  logger?: Logger;
}

export interface LeaseKeeper {
  stop(): void;
}

/**
 * Keeps an attempt's lease and its JetStream message alive, and turns "stop" from the
 * coordinator (heartbeat `cancel: true`, a 409, or a cancel message) into an abort.
 * A heartbeat that fails for other reasons is only logged: the next tick tries again, and the
 * coordinator's sweeper is the one that decides a lease is lost.
 */
export function startLeaseKeeper(o: LeaseKeeperOptions): LeaseKeeper {
  let isStopped = false;
  let isBeating = false;

  const abort = (why: 'cancelled' | 'stale', message: string) => {
    if (isStopped) return;
    o.logger?.info({ why }, `stopping attempt: ${message}`);
    o.abort(new AttemptAbortedError(why, message));
  };

  const tick = async () => {
    try {
      o.working();
    } catch (err) {
      o.logger?.warn({ err: (err as Error).message }, 'JetStream working() failed');
    }
    // No overlapping heartbeats: a slow coordinator gets one request at a time.
    if (isBeating) return;
    isBeating = true;
    try {
      const res = await o.heartbeat();
      if (res.cancel) abort('cancelled', 'the coordinator cancelled this attempt');
    } catch (err) {
      if (err instanceof StaleAttemptError) abort('stale', `the coordinator no longer recognises this attempt (${err.message})`);
      else o.logger?.warn({ err: (err as Error).message }, 'heartbeat failed; retrying at the next tick');
    } finally {
      isBeating = false;
    }
  };

  const timer = o.clock.setInterval(() => void tick(), Math.max(1, Math.floor(o.leaseMs / 2)));
  const unsubscribe = o.subscribeCancel(() => abort('cancelled', 'cancel message received'));

  return {
    stop() {
      if (isStopped) return;
      isStopped = true;
      o.clock.clearInterval(timer);
      unsubscribe();
    },
  };
}
