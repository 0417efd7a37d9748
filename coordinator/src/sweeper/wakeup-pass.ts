import { and, asc, eq, inArray, isNull, lt, notExists, sql } from 'drizzle-orm';
import { agentRunTypes } from '../job-types/agent-types.ts';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import { jobs, outbox } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { failJob } from '../jobs/fail-job.ts';
import { addMs } from '../lib/clock.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Wake-ups are hints, and a hint can be lost: the stream lost its messages, or an agent consumed
 * one and acked it after its claim was refused. Postgres still says the job is queued (an active
 * status with no attempt), so a queued job nobody claimed for `republishAfterMs` gets a new
 * wake-up (a new outbox row, so JetStream's duplicate window does not drop it). Its updated_at
 * moves, so it gets at most one per period; a job whose wake-up is still waiting in the outbox
 * (NATS down) gets none. A queued job that is out of attempts cannot be claimed: it fails.
 */
export function wakeupPass(policy: SweepPolicy): SweepPass {
  return {
    name: 'wakeups',
    async run(ctx, now) {
      const result = { republished: 0, failed: 0, errors: 0 };
      const cutoff = addMs(now, -policy.republishAfterMs);
      // Agent work only: a composite is `analyzing` while its children run (they get the wake-ups), and a
      // coordinator-run job (publish_video: `publishing`) is run by the coordinator's own worker.
      const queued = and(
        inArray(jobs.status, [...ACTIVE_STATUSES]),
        isNull(jobs.currentAttemptId),
        lt(jobs.updatedAt, cutoff),
        inArray(jobs.jobType, agentRunTypes()),
      );
      const unrelayed = ctx.db
        .select({ one: sql`1` })
        .from(outbox)
        .where(and(isNull(outbox.publishedAt), sql`${outbox.payload} ->> 'job_id' = ${jobs.id}::text`));
      const stuck = await ctx.db
        .select({ id: jobs.id, jobType: jobs.jobType, status: jobs.status, attemptCount: jobs.attemptCount })
        .from(jobs)
        .where(and(queued, notExists(unrelayed)))
        .orderBy(asc(jobs.updatedAt))
        .limit(policy.batch);
      for (const job of stuck) {
        const guard = and(eq(jobs.id, job.id), queued);
        try {
          const outcome = await ctx.db.transaction(async (tx) => {
            if (job.attemptCount >= ctx.config.MAX_ATTEMPTS) {
              const row = await failJob(tx, {
                jobId: job.id,
                now,
                code: 'attempts_exhausted',
                message: `processing did not finish after ${job.attemptCount} attempts; the job was refunded`,
                where: guard,
              });
              return row ? ('failed' as const) : null;
            }
            const [row] = await tx.update(jobs).set({ updatedAt: now }).where(guard).returning({ id: jobs.id });
            if (!row) return null;
            await enqueueWakeup(tx, job.id, job.jobType, now);
            return 'republished' as const;
          });
          if (!outcome) continue;
          result[outcome]++;
          ctx.logger.warn({ job_id: job.id, status: job.status, outcome }, 'queued job had no live wake-up');
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: job.id }, 'could not re-publish a wake-up');
        }
      }
      if (result.republished) ctx.notifyOutbox();
      return result;
    },
  };
}
