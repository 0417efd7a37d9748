import { randomUUID } from 'node:crypto';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import type { DurableKind } from '../durable/step-worker.ts';
import type { CompositeStep } from '../job-types/entry.ts';
import { addMs } from '../lib/clock.ts';
import { compositeOf } from './index.ts';

/** A step whose I/O failed (storage, the card processor) is tried again this much later. */
export const STEP_RETRY_MS = 60_000;
/**
 * How long a replica holds a composite's due step (jobs.step_lease_until): a step is a storage read
 * and at most a few card-processor calls, so this is long; a replica that died mid-step leaves it
 * to another once it passes.
 */
export const STEP_LEASE_MS = 120_000;

/**
 * Leases composites whose next step is due (jobs.step_due_at passed, no live lease) to `owner`:
 * one UPDATE over a `FOR UPDATE SKIP LOCKED` selection, so two replicas never take the same one.
 * `only` narrows it to one job (driveComposite).
 */
async function leaseDue(ctx: Ctx, owner: string, limit: number, only?: string): Promise<string[]> {
  const now = ctx.clock.now().toISOString();
  const due = sql`select id from jobs
    where step_due_at <= ${now}::timestamptz
      and (step_lease_until is null or step_lease_until < ${now}::timestamptz)
      ${only ? sql`and id = ${only}::uuid` : sql``}
    order by step_due_at limit ${limit} for update skip locked`;
  const rows = await ctx.db
    .update(jobs)
    .set({ stepLeaseOwner: owner, stepLeaseUntil: addMs(ctx.clock.now(), STEP_LEASE_MS) })
    .where(sql`${jobs.id} in (${due})`)
    .returning({ id: jobs.id });
  return rows.map((r) => r.id);
}

/**
 * Runs a leased composite's due steps one after the other (a cut that finds nothing to cut makes
 * the settlement due at once), then gives the lease back. A step that throws is postponed by
 * STEP_RETRY_MS (if this runner still holds the lease) and rethrown for the worker to log; nothing
 * it did is lost, each step being idempotent and fenced by the lease.
 */
async function runLeased(ctx: Ctx, jobId: string, owner: string): Promise<CompositeStep[]> {
  const mine = and(eq(jobs.id, jobId), eq(jobs.stepLeaseOwner, owner));
  const did: CompositeStep[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      let step: CompositeStep | null;
      try {
        const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
        const run = job && job.stepLeaseOwner === owner ? compositeOf(job.jobType)?.runDueStep : undefined;
        step = run ? await run(ctx, job!, owner) : null;
      } catch (err) {
        const later = addMs(ctx.clock.now(), STEP_RETRY_MS);
        await ctx.db
          .update(jobs)
          .set({ stepDueAt: later })
          .where(and(mine, isNotNull(jobs.stepDueAt)))
          .catch(() => {});
        throw err;
      }
      if (!step) break;
      did.push(step);
      if (step !== 'cut') break;
    }
  } finally {
    await ctx.db
      .update(jobs)
      .set({ stepLeaseOwner: null, stepLeaseUntil: null })
      .where(mine)
      .catch(() => {});
  }
  return did;
}

/**
 * Composites' due steps as a kind of durable run (ADR 0010): the step worker every replica runs
 * (durable/step-worker.ts) leases them and runs each. An agent product's steps: its cut after
 * find_clips ended, the capture or release of its hold.
 */
export function compositeRuns(): DurableKind {
  return {
    name: 'composite',
    async lease(ctx, owner, limit) {
      const ids = await leaseDue(ctx, owner, limit);
      return ids.map((id) => ({ id, run: async () => (await runLeased(ctx, id, owner)).join(', ') || 'nothing due' }));
    },
  };
}

/**
 * Runs one composite's due steps now, under a lease of its own (tests, and what the worker does
 * for one run): nothing when no step is due or another runner holds it.
 */
export async function driveComposite(ctx: Ctx, jobId: string): Promise<CompositeStep[]> {
  const owner = `direct-${randomUUID()}`;
  const [id] = await leaseDue(ctx, owner, 1, jobId);
  return id ? runLeased(ctx, id, owner) : [];
}

/**
 * The one nudge, after the commit that ended a child (agents' complete and fail, the claim, an
 * operator's cancel): the step worker looks for due steps now instead of at its next poll (the
 * agent's call is not held by the card processor). A nudge lost (a crash) is only a poll late.
 */
export function nudgeParent(ctx: Ctx, child: Pick<JobRow, 'parentJobId'> | null | undefined): void {
  if (child?.parentJobId) ctx.nudgeSteps();
}
