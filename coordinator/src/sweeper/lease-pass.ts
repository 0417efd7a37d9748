import { and, eq, inArray, isNotNull, lt } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import { jobAttempts, jobs } from '../db/schema.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { requeueJob } from '../jobs/requeue-job.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Attempts whose lease ran out (agent killed, host gone) end as `lease_expired`; the job is
 * requeued to its type's first stage with a new wake-up, or failed (and refunded) after
 * MAX_ATTEMPTS. The old holder is told to stop: it may be alive but cut off.
 */
export function leasePass(policy: SweepPolicy): SweepPass {
  return {
    name: 'leases',
    async run(ctx, now) {
      const result = { requeued: 0, failed: 0, errors: 0 };
      const lapsed = await ctx.db
        .select()
        .from(jobs)
        .where(and(isNotNull(jobs.currentAttemptId), lt(jobs.leaseExpiresAt, now), inArray(jobs.status, [...ACTIVE_STATUSES])))
        .limit(policy.batch);
      for (const job of lapsed) {
        const attemptId = job.currentAttemptId!;
        const fence = and(eq(jobs.currentAttemptId, attemptId), lt(jobs.leaseExpiresAt, now));
        try {
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
          if (outcome) ctx.cancelAttempt(attemptId);
          if (outcome) result[outcome]++;
          const [holder] = await ctx.db.select({ agentId: jobAttempts.agentId }).from(jobAttempts).where(eq(jobAttempts.id, attemptId)).limit(1);
          ctx.logger.warn({ job_id: job.id, attempt_id: attemptId, agent_id: holder?.agentId, outcome }, 'lease expired');
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: job.id, attempt_id: attemptId }, 'could not sweep an expired lease');
        }
      }
      if (result.requeued) ctx.notifyOutbox();
      return result;
    },
  };
}
