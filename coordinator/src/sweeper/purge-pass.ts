import { and, asc, eq, isNotNull, lte, max, sql } from 'drizzle-orm';
import { assignmentUrlTtlSeconds } from '../agents/claim.ts';
import { jobAttempts, jobs } from '../db/schema.ts';
import { jobPrefixOf } from '../jobs/job-access.ts';
import { UPLOAD_MARGIN_MS } from '../jobs/open-job-expiry.ts';
import { addMs } from '../lib/clock.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Removes every object under `jobs/<id>/` of `deleted` jobs whose expires_at is due (set by
 * retention, by the open-job expiry and by the caller's last DELETE). For a deleted job,
 * expires_at means "objects still to remove from then on"; null means nothing is left.
 *
 * - An object that cannot be deleted does not stop the sweep: that job is tried again
 *   `purgeRetryMs` later and the others go on.
 * - Output URLs of an attempt live for hours (claim.ts): when one handed out for this job may
 *   still be valid, a stale agent could still PUT through it, so one more purge is scheduled for
 *   when the last of them has lapsed.
 */
export function purgePass(policy: SweepPolicy): SweepPass {
  return {
    name: 'purge',
    async run(ctx, now) {
      const result = { purged: 0, objects: 0, failed: 0 };
      const due = await ctx.db
        .select({ id: jobs.id, expiresAt: jobs.expiresAt })
        .from(jobs)
        .where(and(eq(jobs.status, 'deleted'), isNotNull(jobs.expiresAt), lte(jobs.expiresAt, now)))
        .orderBy(asc(jobs.expiresAt))
        .limit(policy.batch);
      for (const job of due) {
        const same = and(eq(jobs.id, job.id), eq(jobs.status, 'deleted'), eq(jobs.expiresAt, job.expiresAt!));
        try {
          result.objects += await ctx.blobs.deletePrefix(jobPrefixOf(job.id));
        } catch (err) {
          result.failed++;
          ctx.logger.error({ err, job_id: job.id }, 'could not delete every object of a deleted job; trying again later');
          await ctx.db
            .update(jobs)
            .set({ expiresAt: addMs(now, policy.purgeRetryMs) })
            .where(same)
            .catch((e: unknown) => ctx.logger.error({ err: e, job_id: job.id }, 'could not reschedule a purge'));
          continue;
        }
        const [last] = await ctx.db
          .select({ startedAt: max(jobAttempts.startedAt) })
          .from(jobAttempts)
          .where(eq(jobAttempts.jobId, job.id));
        const urlsLapse = last?.startedAt ? addMs(last.startedAt, assignmentUrlTtlSeconds(ctx.config) * 1000 + UPLOAD_MARGIN_MS) : null;
        await ctx.db
          .update(jobs)
          .set({
            expiresAt: urlsLapse && urlsLapse > now ? urlsLapse : null,
            sourceDeletedAt: sql`coalesce(${jobs.sourceDeletedAt}, ${now.toISOString()}::timestamptz)`,
          })
          .where(same);
        result.purged++;
      }
      return result;
    },
  };
}
