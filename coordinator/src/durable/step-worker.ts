import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';

/**
 * The durable-step worker every coordinator replica runs (ADR 0010): each tick it asks each kind
 * of durable run for its due runs, leased to this replica (`FOR UPDATE SKIP LOCKED` in the kind's
 * lease, so two replicas never take the same run), and starts them within a concurrency budget.
 * A run writes each confirmed step before the next, fenced by its lease; a replica that dies
 * leaves its leases to expire, and the next tick anywhere takes the runs over and resumes them
 * from their last confirmed step. No leader: every replica runs the same worker (ADR 0008).
 */
export interface DurableKind {
  /** For logs: `publish`, … */
  name: string;
  /** Leases up to `limit` due runs to `owner` and returns each as a run to start. */
  lease(ctx: Ctx, owner: string, limit: number): Promise<LeasedRun[]>;
}

export interface LeasedRun {
  /** The run's id (its job's): one in flight per id in this process. */
  id: string;
  /** Runs it as far as it goes; resolves with how it stopped (for logs). */
  run(): Promise<string>;
}

export interface StepWorkerOptions {
  /** How often due runs are looked for. @default 1000 ms */
  pollMs?: number;
  /** Runs at once per replica, all kinds together. @default 4 */
  concurrency?: number;
}

export interface StepWorker {
  /** This replica's lease owner. */
  owner: string;
  /** Runs a tick now (a run was made due), instead of at the next poll. */
  nudge(): void;
  /** Stops polling and waits a little for runs in flight; their leases expire and another replica resumes them. */
  stop(): Promise<void>;
}

export function startStepWorker(ctx: Ctx, kinds: readonly DurableKind[], opts: StepWorkerOptions = {}): StepWorker {
  const owner = `coordinator-${randomUUID()}`;
  const running = new Set<string>();
  const concurrency = opts.concurrency ?? 4;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const inflight = new Set<Promise<unknown>>();

  async function tick(): Promise<void> {
    timer = null;
    for (const kind of kinds) {
      try {
        const free = concurrency - running.size;
        const runs = free > 0 ? await kind.lease(ctx, owner, free) : [];
        for (const r of runs) {
          running.add(r.id);
          const p = r
            .run()
            .then((outcome) => ctx.logger.info({ kind: kind.name, job_id: r.id, outcome }, `${kind.name} run ran`))
            .catch((err: unknown) => ctx.logger.error({ kind: kind.name, job_id: r.id, err }, `${kind.name} run crashed; its lease will expire and it resumes`))
            .finally(() => {
              running.delete(r.id);
              inflight.delete(p);
            });
          inflight.add(p);
        }
      } catch (err) {
        ctx.logger.warn({ kind: kind.name, err }, 'the step worker could not lease due runs; retrying');
      }
    }
    if (!stopped) timer = setTimeout(() => void tick(), opts.pollMs ?? 1000);
  }
  timer = setTimeout(() => void tick(), 0);

  return {
    owner,
    nudge() {
      if (stopped || !timer) return;
      clearTimeout(timer);
      timer = setTimeout(() => void tick(), 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 2_000))]);
    },
  };
}
