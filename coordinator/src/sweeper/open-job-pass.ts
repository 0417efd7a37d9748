import { and, asc, inArray } from 'drizzle-orm';
import { jobs } from '../db/schema.ts';
import { OPEN_STATUSES, abandonedWhere, expireOpenJob } from '../jobs/open-job-expiry.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Jobs that never started: `pending` (never paid) or `uploading` (upload never completed) past
 * their expiry become `deleted`, a paid one refunded, with their objects (an upload that was PUT
 * but never completed) scheduled for the purge pass. See jobs/open-job-expiry.ts for the clock.
 */
export function openJobPass(policy: SweepPolicy): SweepPass {
  return {
    name: 'open-jobs',
    async run(ctx, now) {
      const result = { expired: 0, errors: 0 };
      const abandoned = await ctx.db
        .select({ id: jobs.id, status: jobs.status, paymentStatus: jobs.paymentStatus, jobType: jobs.jobType })
        .from(jobs)
        .where(and(inArray(jobs.status, [...OPEN_STATUSES]), abandonedWhere(now, ctx.config)))
        .orderBy(asc(jobs.expiresAt))
        .limit(policy.batch);
      for (const job of abandoned) {
        try {
          const row = await ctx.db.transaction((tx) => expireOpenJob(tx, job, now, ctx.config));
          if (!row) continue;
          result.expired++;
          ctx.logger.info({ job_id: job.id, status: job.status, payment_status: job.paymentStatus }, 'open job expired');
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: job.id }, 'could not expire an open job');
        }
      }
      // An agent product's hold release was made due: the durable-step worker runs it now.
      if (result.expired) ctx.nudgeSteps();
      return result;
    },
  };
}
