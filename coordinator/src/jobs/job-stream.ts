import { and, asc, eq, sql } from 'drizzle-orm';
import type { JobStatus, PaymentStatus } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobEvents, jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { isTerminal } from './transitions.ts';

export type JobStreamEvent =
  | {
      type: 'status';
      id: string;
      job_id: string;
      status: JobStatus;
      from: JobStatus | null;
      reason: string;
      at: string;
      payment_status: PaymentStatus;
      error_message: string | null;
    }
  | { type: 'progress'; job_id: string; stage: string; fraction: number; at: string }
  | { type: 'end'; job_id: string; status: JobStatus };

export const DEFAULT_POLL_MS = 500;

/**
 * A job_events id as callers send it back (SSE Last-Event-ID, an MCP cursor): digits only, a safe
 * integer. Absent → 0 (every event). Anything else is a 400, never silently "from the start".
 */
export function parseEventId(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new AppError('invalid_request', `last event id must be a job event id (digits), got ${JSON.stringify(raw.slice(0, 40))}`);
  return n;
}

/** A claim's row names the agent (`claimed by <agent id>`): callers learn that it was claimed, not by which host. */
const publicReason = (reason: string): string => (reason.startsWith('claimed by ') ? 'claimed' : reason);

/** One open stream as the hub sees it. */
interface Watcher {
  jobId: string;
  /** The last job_events id handed to this stream (0: none yet). */
  cursor: number;
  /** stage + fraction of the last progress handed out: a rewrite of the same value is not news. */
  progressKey: string | null;
  pollMs: number;
  queue: JobStreamEvent[];
  /** Wakes the generator waiting for the queue (or for its abort). */
  wake: (() => void) | null;
}

type Row = {
  jobId: string;
  status: JobStatus;
  paymentStatus: PaymentStatus;
  errorMessage: string | null;
  progress: { stage: string; fraction: number; at: string } | null;
  eventId: number | null;
  from: JobStatus | null;
  to: JobStatus | null;
  reason: string | null;
  at: Date | null;
};

/**
 * One poller per Ctx for every open stream: one query per tick, whatever the number of streams,
 * reading Postgres (the truth, shared by every coordinator replica) rather than any in-process
 * signal. It runs only while someone watches, and never overlaps itself (setTimeout after each
 * read, not setInterval).
 */
class Hub {
  readonly watchers = new Set<Watcher>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private polling = false;
  /** A stream joined while a read was in flight: read again at once for it. */
  private again = false;
  private readonly ctx: Ctx;
  constructor(ctx: Ctx) {
    this.ctx = ctx;
  }

  add(w: Watcher): void {
    this.watchers.add(w);
    // A new stream gets its backlog now, not a tick later.
    if (this.polling) this.again = true;
    else this.arm(0);
  }

  remove(w: Watcher): void {
    this.watchers.delete(w);
    if (this.watchers.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private arm(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async tick(): Promise<void> {
    this.timer = null;
    // Only the streams present when the read starts are served from it: one that joins meanwhile
    // may want older events than the read asked for.
    const batch = [...this.watchers];
    if (batch.length === 0) return;
    this.polling = true;
    try {
      deliver(batch, await this.read(batch), this.watchers);
    } catch (err) {
      // A failed read (database restarting, statement timeout) is retried next tick; the streams wait.
      this.ctx.logger.warn({ err }, 'job event stream poll failed');
    } finally {
      this.polling = false;
      if (this.watchers.size > 0) {
        this.arm(this.again ? 0 : Math.min(...[...this.watchers].map((w) => w.pollMs)));
        this.again = false;
      }
    }
  }

  /**
   * Each watched job's row with its events past that job's lowest cursor, in id order, in one
   * statement: one snapshot, so a job read as completed comes with the event that completed it.
   * Cursors are per job on purpose: event ids of different jobs may commit out of order, but those
   * of one job cannot (transitionJob updates the job row first, so the row lock orders them); and a
   * tick reads only new rows, however old the oldest watched job.
   */
  private read(batch: Watcher[]): Promise<Row[]> {
    const after = new Map<string, number>();
    for (const w of batch) after.set(w.jobId, Math.min(after.get(w.jobId) ?? w.cursor, w.cursor));
    const watched = sql`(values ${sql.join(
      [...after].map(([id, cursor]) => sql`(${id}::uuid, ${cursor}::bigint)`),
      sql`, `,
    )}) as watched(job_id, after_id)`;
    return this.ctx.db
      .select({
        jobId: jobs.id,
        status: jobs.status,
        paymentStatus: jobs.paymentStatus,
        errorMessage: jobs.errorMessage,
        progress: jobs.progress,
        eventId: jobEvents.id,
        from: jobEvents.fromStatus,
        to: jobEvents.toStatus,
        reason: jobEvents.reason,
        at: jobEvents.createdAt,
      })
      .from(watched)
      .innerJoin(jobs, sql`${jobs.id} = watched.job_id`)
      .leftJoin(jobEvents, and(eq(jobEvents.jobId, jobs.id), sql`${jobEvents.id} > watched.after_id`))
      .orderBy(asc(jobEvents.id));
  }
}

/** Hands each stream what is new to it: status events past its cursor, then changed progress or the end. */
function deliver(batch: Watcher[], rows: Row[], live: Set<Watcher>): void {
  const byJob = new Map<string, Row[]>();
  for (const r of rows) {
    const list = byJob.get(r.jobId);
    if (list) list.push(r);
    else byJob.set(r.jobId, [r]);
  }
  for (const w of batch) {
    if (!live.has(w)) continue;
    const before = w.queue.length;
    const jobRows = byJob.get(w.jobId);
    const job = jobRows?.[0];
    for (const r of jobRows ?? []) {
      if (r.eventId === null || r.eventId <= w.cursor) continue;
      w.cursor = r.eventId;
      w.queue.push({
        type: 'status',
        id: String(r.eventId),
        job_id: w.jobId,
        status: r.to!,
        from: r.from,
        reason: publicReason(r.reason!),
        at: r.at!.toISOString(),
        // job_events keeps no payment status: this is the job's as read with the event.
        payment_status: r.paymentStatus,
        // The caller-facing message (failureMessage) belongs to the failure, not to earlier events.
        error_message: r.to === 'failed' ? r.errorMessage : null,
      });
    }
    if (!job || isTerminal(job.status)) {
      // No row at all: the job is gone (ownership was checked before the stream started).
      w.queue.push({ type: 'end', job_id: w.jobId, status: job?.status ?? 'deleted' });
      live.delete(w);
    } else if (job.progress && job.progress.stage === job.status) {
      // Progress of the stage the job has left is stale until the agent reports again.
      const { stage, fraction, at } = job.progress;
      const key = `${stage}:${fraction}`;
      if (key !== w.progressKey) {
        w.progressKey = key;
        w.queue.push({ type: 'progress', job_id: w.jobId, stage, fraction, at });
      }
    }
    if (w.queue.length > before) w.wake?.();
  }
}

const hubs = new WeakMap<Ctx, Hub>();
function hubOf(ctx: Ctx): Hub {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = new Hub(ctx);
    hubs.set(ctx, hub);
  }
  return hub;
}

/** Yields the job's status changes after `afterEventId` (all of them when absent) in order, then progress while it runs, and ends with one `end` event once the job is completed, failed or deleted (or when signal aborts: then it just returns). Ownership is the caller's business. */
export async function* streamJobEvents(
  ctx: Ctx,
  jobId: string,
  opts: { afterEventId?: string; signal: AbortSignal; pollMs?: number },
): AsyncGenerator<JobStreamEvent> {
  const { signal } = opts;
  const w: Watcher = { jobId, cursor: parseEventId(opts.afterEventId), progressKey: null, pollMs: opts.pollMs ?? DEFAULT_POLL_MS, queue: [], wake: null };
  if (signal.aborted) return;
  const hub = hubOf(ctx);
  const onAbort = () => w.wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  hub.add(w);
  try {
    for (;;) {
      let ev = w.queue.shift();
      while (ev) {
        if (signal.aborted) return;
        yield ev;
        if (ev.type === 'end') return;
        ev = w.queue.shift();
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        w.wake = resolve;
      });
      w.wake = null;
    }
  } finally {
    // Also reached when the consumer stops iterating (return()): the hub stops polling for it.
    signal.removeEventListener('abort', onAbort);
    hub.remove(w);
  }
}
