import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { publishWorkflows, type PublishWorkflowRow } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { runWorkflow, type WorkflowSettings } from './publish-workflow.ts';

/**
 * The publish worker every coordinator replica runs (ADR 0006). Each tick it leases the due
 * workflows (`next_run_at` passed, lease free or expired) with one UPDATE over a
 * `FOR UPDATE SKIP LOCKED` selection, so two replicas never take the same row, and runs them. A
 * replica that dies leaves its leases to expire; the next tick anywhere takes them over and the
 * workflow resumes from its last confirmed step.
 */
export interface PublishWorkerOptions {
  /** How often due workflows are looked for @default 1000 ms */
  pollMs?: number;
  /** Workflows run at once per replica @default 4 */
  concurrency?: number;
  settings: WorkflowSettings;
}

/** Leases up to `limit` due workflows to `owner`. */
export async function leaseDueWorkflows(ctx: Ctx, owner: string, limit: number, leaseMs: number): Promise<PublishWorkflowRow[]> {
  const now = ctx.clock.now();
  const until = addMs(now, leaseMs);
  const due = sql`select job_id from publish_workflows
    where step not in ('done', 'failed') and next_run_at <= ${now.toISOString()}::timestamptz
      and (lease_until is null or lease_until < ${now.toISOString()}::timestamptz)
    order by next_run_at limit ${limit} for update skip locked`;
  return ctx.db
    .update(publishWorkflows)
    .set({ leaseOwner: owner, leaseUntil: until, updatedAt: now })
    .where(sql`${publishWorkflows.jobId} in (${due})`)
    .returning();
}

export function startPublishWorker(ctx: Ctx, opts: PublishWorkerOptions) {
  const owner = `coordinator-${randomUUID()}`;
  const running = new Set<string>();
  const concurrency = opts.concurrency ?? 4;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const inflight = new Set<Promise<unknown>>();

  async function tick(): Promise<void> {
    timer = null;
    try {
      const free = concurrency - running.size;
      const rows = free > 0 ? await leaseDueWorkflows(ctx, owner, free, opts.settings.leaseMs) : [];
      for (const row of rows) {
        running.add(row.jobId);
        const p = runWorkflow(ctx, row, owner, opts.settings)
          .then((outcome) => ctx.logger.info({ job_id: row.jobId, outcome }, 'publish workflow ran'))
          .catch((err: unknown) => ctx.logger.error({ job_id: row.jobId, err }, 'publish workflow crashed; its lease will expire and it resumes'))
          .finally(() => {
            running.delete(row.jobId);
            inflight.delete(p);
          });
        inflight.add(p);
      }
    } catch (err) {
      ctx.logger.warn({ err }, 'publish worker could not lease workflows; retrying');
    }
    if (!stopped) timer = setTimeout(() => void tick(), opts.pollMs ?? 1000);
  }
  timer = setTimeout(() => void tick(), 0);

  return {
    owner,
    /** Runs a tick now (after a job was paid), instead of at the next poll. */
    nudge() {
      if (stopped || !timer) return;
      clearTimeout(timer);
      timer = setTimeout(() => void tick(), 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      // Leases of runs still in flight are left to expire: another replica resumes them.
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 2_000))]);
    },
  };
}
