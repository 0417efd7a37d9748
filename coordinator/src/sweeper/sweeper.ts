import { and, eq, inArray, isNotNull, lt } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs } from '../db/schema.ts';
import { processRefunds } from '../payments/refunder.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { requeueJob } from '../jobs/requeue-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';

/**
 * One sweep, with the injected clock:
 *  1. attempts whose lease ran out (agent killed, host gone) end as `lease_expired`; the job is
 *     requeued to its type's first stage with a new wake-up, or failed (and refunded) after
 *     MAX_ATTEMPTS;
 *  2. finished jobs past expires_at lose their stored source and outputs and become `deleted`.
 * Each job is handled in its own transaction guarded by the fence it read, so a sweep racing a
 * late heartbeat or a second coordinator changes nothing twice.
 */
export async function sweepOnce(ctx: Ctx): Promise<{ requeued: number; failed: number; expired: number }> {
  const now = ctx.clock.now();
  const result = { requeued: 0, failed: 0, expired: 0 };
  const lapsed = await ctx.db
    .select()
    .from(jobs)
    .where(and(isNotNull(jobs.currentAttemptId), lt(jobs.leaseExpiresAt, now), inArray(jobs.status, [...ACTIVE_STATUSES])))
    .limit(100);
  for (const job of lapsed) {
    const attemptId = job.currentAttemptId!;
    const fence = and(eq(jobs.currentAttemptId, attemptId), lt(jobs.leaseExpiresAt, now));
    const outcome = await ctx.db.transaction(async (tx) => {
      // The fenced job update decides; the attempt row is ended only when it won, so a lease
      // renewed by a late heartbeat leaves the live attempt untouched.
      const lost = { code: 'lease_expired', message: `lease expired after ${ctx.config.LEASE_MS} ms without a heartbeat` } as const;
      if (job.attemptCount >= ctx.config.MAX_ATTEMPTS) {
        const row = await failJob(tx, {
          jobId: job.id,
          now,
          code: 'attempts_exhausted',
          message: `processing did not finish after ${job.attemptCount} attempts; the job was refunded`,
          attemptId,
          where: fence,
        });
        if (!row) return null;
        await endAttempt(tx, attemptId, now, 'lease_expired', lost);
        return 'failed' as const;
      }
      const row = await requeueJob(tx, job, { now, reason: 'lease expired', attemptId, where: fence });
      if (!row) return null;
      await endAttempt(tx, attemptId, now, 'lease_expired', lost);
      return 'requeued' as const;
    });
    // The old holder may be alive but cut off (a paused process, a partition): tell it to stop.
    if (outcome) ctx.cancelAttempt(attemptId);
    if (outcome === 'requeued') result.requeued++;
    if (outcome === 'failed') result.failed++;
    ctx.logger.warn({ job_id: job.id, attempt_id: attemptId, outcome }, 'lease expired');
  }
  if (result.requeued) ctx.notifyOutbox();

  const expired = await ctx.db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.status, ['completed', 'failed']), lt(jobs.expiresAt, now)))
    .limit(100);
  for (const job of expired) {
    await ctx.blobs.deletePrefix(`jobs/${job.id}/`);
    const moved = await ctx.db.transaction(async (tx) => {
      await tx.delete(jobOutputs).where(eq(jobOutputs.jobId, job.id));
      return transitionJob(tx, { jobId: job.id, from: job.status, to: 'deleted', reason: 'retention expired', now, patch: { sourceDeletedAt: now } });
    });
    if (moved) result.expired++;
  }
  return result;
}

export function startSweeper(ctx: Ctx) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      Promise.all([
        sweepOnce(ctx).catch((err: unknown) => ctx.logger.error({ err }, 'sweep failed')),
        ctx.billing.enabled ? processRefunds(ctx).catch((err: unknown) => ctx.logger.error({ err }, 'refund pass failed')) : null,
      ]),
    );
  }, ctx.config.SWEEP_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
