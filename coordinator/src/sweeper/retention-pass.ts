import { and, asc, eq, inArray, lt, not, sql } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import { jobOutputs, jobs } from '../db/schema.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Finished jobs past their retention (expires_at) become `deleted` and lose their output rows;
 * their objects stay scheduled (expires_at) for the purge pass, which removes `jobs/<id>/`.
 * Status first, objects after: a job is never shown with outputs whose objects are gone. A
 * derivative's own outputs live under its own prefix, so it keeps them for its own retention
 * whatever happens to its parent.
 */
export function retentionPass(policy: SweepPolicy): SweepPass {
  return {
    name: 'retention',
    async run(ctx, now) {
      const result = { expired: 0, errors: 0 };
      // A parent whose derivatives are still queued or running keeps its source until they end:
      // they were paid for against it. It expires on the first sweep after the last one ends.
      // (constants, inlined as literals so they compare with the enum column on both Postgres and PGlite)
      const cutting = sql`EXISTS (SELECT 1 FROM jobs AS child WHERE child.source_job_id = ${jobs.id} AND child.status IN (${sql.raw(ACTIVE_STATUSES.map((s) => `'${s}'`).join(', '))}))`;
      const due = and(inArray(jobs.status, ['completed', 'failed']), lt(jobs.expiresAt, now), not(cutting));
      const expired = await ctx.db.select({ id: jobs.id, status: jobs.status }).from(jobs).where(due).orderBy(asc(jobs.expiresAt)).limit(policy.batch);
      for (const job of expired) {
        try {
          const moved = await ctx.db.transaction(async (tx) => {
            const row = await transitionJob(tx, {
              jobId: job.id,
              from: job.status,
              to: 'deleted',
              reason: 'retention expired',
              now,
              where: due,
              patch: { expiresAt: now },
            });
            if (row) await tx.delete(jobOutputs).where(eq(jobOutputs.jobId, job.id));
            return row;
          });
          if (moved) result.expired++;
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: job.id }, 'could not expire a finished job');
        }
      }
      return result;
    },
  };
}
