import { sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { publishWorkflows, type PublishWorkflowRow } from '../db/schema.ts';
import type { DurableKind } from '../durable/step-worker.ts';
import { addMs } from '../lib/clock.ts';
import { runWorkflow, type WorkflowSettings } from './publish-workflow.ts';

/** Leases up to `limit` due publish workflows (`next_run_at` passed, lease free or expired) to `owner`, with one UPDATE over a `FOR UPDATE SKIP LOCKED` selection. */
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

/**
 * Publishing as a kind of durable run (ADR 0006, ADR 0010): the step worker every replica runs
 * (durable/step-worker.ts) leases due publish workflows and runs each from its last confirmed step.
 */
export function publishRuns(settings: WorkflowSettings): DurableKind {
  return {
    name: 'publish',
    async lease(ctx, owner, limit) {
      const rows = await leaseDueWorkflows(ctx, owner, limit, settings.leaseMs);
      return rows.map((row) => ({ id: row.jobId, run: () => runWorkflow(ctx, row, owner, settings) }));
    },
  };
}
