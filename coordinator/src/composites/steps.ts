import { and, eq, isNotNull } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import type { CompositeStep } from '../job-types/entry.ts';
import { addMs } from '../lib/clock.ts';
import { compositeOf } from './index.ts';

/** A step whose I/O failed (storage, the card processor) is tried again this much later. */
export const STEP_RETRY_MS = 60_000;

/**
 * Runs a composite's due steps one after the other (a cut that finds nothing to cut makes the
 * settlement due at once). The step due is written in the transaction that made it due
 * (jobs.step_due_at); this runs it after commit (nudgeParent) or from the sweeper's composites
 * pass. A step that throws is postponed by STEP_RETRY_MS and rethrown for the caller to log;
 * nothing it did is lost, each step being idempotent.
 */
export async function driveComposite(ctx: Ctx, jobId: string): Promise<CompositeStep[]> {
  // One runner per composite in this process: the after-commit nudge and the sweeper would otherwise
  // race to the processor with the same idempotency key (harmless, but a 409 to retry).
  const mine = running.get(ctx) ?? new Set<string>();
  running.set(ctx, mine);
  if (mine.has(jobId)) return [];
  mine.add(jobId);
  try {
    return await driveSteps(ctx, jobId);
  } finally {
    mine.delete(jobId);
  }
}

const running = new WeakMap<Ctx, Set<string>>();

async function driveSteps(ctx: Ctx, jobId: string): Promise<CompositeStep[]> {
  const did: CompositeStep[] = [];
  for (let i = 0; i < 3; i++) {
    let step: CompositeStep | null;
    try {
      const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
      const run = job && compositeOf(job.jobType)?.runDueStep;
      step = run ? await run(ctx, job) : null;
    } catch (err) {
      const later = addMs(ctx.clock.now(), STEP_RETRY_MS);
      await ctx.db
        .update(jobs)
        .set({ stepDueAt: later })
        .where(and(eq(jobs.id, jobId), isNotNull(jobs.stepDueAt)))
        .catch(() => {});
      throw err;
    }
    if (!step) break;
    did.push(step);
    if (step !== 'cut') break;
  }
  return did;
}

/**
 * The one nudge, after the commit that ended a child (agents' complete and fail, the claim, an
 * operator's cancel): its parent's due step runs now, in the background (the agent's call is not
 * held by the card processor). The sweeper's composites pass runs whatever this misses (a crash,
 * an error).
 */
export function nudgeParent(ctx: Ctx, child: Pick<JobRow, 'parentJobId'> | null | undefined): void {
  const parentId = child?.parentJobId;
  if (!parentId) return;
  void driveComposite(ctx, parentId).catch((err: unknown) =>
    ctx.logger.error({ job_id: parentId, err: err instanceof Error ? err.message : String(err) }, 'composite step failed; the sweeper retries it'),
  );
}
