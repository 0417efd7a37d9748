import { progressSubject, type Fence, type ProgressEvent, type Stage } from '@cutroom/proto';
import type { Clock, TimerHandle } from '../clock.ts';
import type { Logger } from '../logger.ts';

export interface ProgressPublisherOptions {
  fence: Fence;
  /** Core NATS publish (lossy by design); throwing is logged, never fatal. */
  publish: (subject: string, payload: string) => void;
  /** Minimum gap between two publishes for this attempt. @default 1000 ms */
  intervalMs?: number;
  /** Stamps `at` and spaces the publishes. */
  clock: Clock;
  logger?: Logger;
}

export interface ProgressPublisher {
  /** Records the newest progress; it is sent now or when the interval allows, replacing older unsent values. */
  report(stage: Stage, fraction: number, message?: string): void;
  /** Sends the pending value at once (call at stage ends so the last word is never throttled away). */
  flush(): void;
  /** Flushes and cancels the timer. Later reports are dropped. */
  close(): void;
}

/** Coalesces progress per attempt: newest wins, at most one publish per interval, last one always sent. */
export function createProgressPublisher(o: ProgressPublisherOptions): ProgressPublisher {
  const intervalMs = o.intervalMs ?? 1000;
  const subject = progressSubject(o.fence.agent_id, o.fence.job_id);
  let pending: ProgressEvent | null = null;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let timer: TimerHandle | null = null;
  let isClosed = false;

  const send = () => {
    if (timer) o.clock.clearTimeout(timer);
    timer = null;
    if (!pending) return;
    const event = pending;
    pending = null;
    lastSentAt = o.clock.now();
    try {
      o.publish(subject, JSON.stringify(event));
    } catch (err) {
      o.logger?.debug({ err: (err as Error).message }, 'progress publish failed (lossy, ignored)');
    }
  };

  return {
    report(stage, fraction, message) {
      if (isClosed) return;
      pending = {
        ...o.fence,
        stage,
        fraction: Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0)),
        ...(message === undefined ? {} : { message: message.slice(0, 200) }),
        at: new Date(o.clock.now()).toISOString(),
      };
      const wait = lastSentAt + intervalMs - o.clock.now();
      if (wait <= 0) send();
      else timer ??= o.clock.setTimeout(send, wait);
    },
    flush: send,
    close() {
      send();
      isClosed = true;
    },
  };
}
