import { and, eq } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { isActive } from './transitions.ts';
import { loadOwnedJob, type JobRow } from './job-access.ts';
import { activeDerivatives } from './parent-source.ts';
import { transitionJob } from './transition-job.ts';

function refuseWhileRunning(job: JobRow): void {
  if (isActive(job.status)) {
    throw new AppError('conflict', `job ${job.id} is still processing (status ${job.status}); delete after it completes`);
  }
}

/**
 * Once the source and every output are gone, a finished job becomes `deleted`. What else is left
 * under its prefix (other attempts' outputs) is scheduled for the sweeper's purge (expires_at now).
 */
async function markDeletedWhenEmpty(ctx: Ctx, jobId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
    if (!job || (job.status !== 'completed' && job.status !== 'failed')) return;
    const left = await tx.select({ id: jobOutputs.id }).from(jobOutputs).where(eq(jobOutputs.jobId, jobId)).limit(1);
    if (left.length || (job.sourceKey && !job.sourceDeletedAt)) return;
    const now = ctx.clock.now();
    await transitionJob(tx, { jobId, from: job.status, to: 'deleted', reason: 'deleted by caller', now, patch: { expiresAt: now } });
  });
}

/** DELETE /jobs/{id}/source */
export async function deleteSource(ctx: Ctx, sessionId: string, jobId: string) {
  const job = await loadOwnedJob(ctx.db, jobId, sessionId);
  if (!job.sourceKey || job.sourceDeletedAt) throw new AppError('not_found', `job ${job.id} has no stored source`);
  refuseWhileRunning(job);
  const cutting = await activeDerivatives(ctx.db, job.id);
  if (cutting.length) {
    throw new AppError(
      'conflict',
      `derivative job${cutting.length > 1 ? 's' : ''} ${cutting.join(', ')} ${cutting.length > 1 ? 'are' : 'is'} still cutting from this source; delete it after they complete`,
    );
  }
  await ctx.blobs.delete(job.sourceKey);
  await ctx.db.update(jobs).set({ sourceDeletedAt: ctx.clock.now(), updatedAt: ctx.clock.now() }).where(eq(jobs.id, job.id));
  await markDeletedWhenEmpty(ctx, job.id);
  return { deleted: true as const };
}

/** DELETE /jobs/{id}/outputs/{role} */
export async function deleteOutput(ctx: Ctx, sessionId: string, jobId: string, role: string) {
  const job = await loadOwnedJob(ctx.db, jobId, sessionId);
  const [out] = await ctx.db
    .select()
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, job.id), eq(jobOutputs.role, role)))
    .limit(1);
  if (!out) throw new AppError('not_found', `job ${job.id} has no output ${role}`);
  refuseWhileRunning(job);
  // A running derivative re-times (extract_clip) or cuts by (edit_from_transcript) these words at its claim.
  if (role === 'transcript') {
    const cutting = await activeDerivatives(ctx.db, job.id);
    if (cutting.length) {
      throw new AppError(
        'conflict',
        `derivative job${cutting.length > 1 ? 's' : ''} ${cutting.join(', ')} ${cutting.length > 1 ? 'are' : 'is'} still cutting with this transcript; delete it after they complete`,
      );
    }
  }
  for (const key of [out.storageKey, ...Object.values(out.meta)]) if (key) await ctx.blobs.delete(key);
  await ctx.db.delete(jobOutputs).where(eq(jobOutputs.id, out.id));
  await markDeletedWhenEmpty(ctx, job.id);
  return { deleted: true as const };
}
