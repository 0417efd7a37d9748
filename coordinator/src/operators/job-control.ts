import { eq } from 'drizzle-orm';
import { failureMessage } from '@cutroom/shared/failures';
import type { Ctx } from '../context.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { operatorRefusal } from '../job-types/lifecycle.ts';
import { definitionOf } from '../job-types/agent-types.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { nudgeParent } from '../composites/steps.ts';
import { isTerminal } from '../jobs/transitions.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { AppError } from '../lib/app-error.ts';
import { recordAction } from './audit.ts';
import type { Operator } from './operator-auth.ts';

/**
 * An operator cancels a job that has not ended: it fails as `operator_cancelled` and, when it was
 * paid, is refunded like every failed job (the refund is queued in the same transaction). An
 * attempt still running is ended and its agent told to stop (its next fenced call is refused in
 * any case). An unpaid job just fails; nothing was charged. Bundles and agent products are
 * cancelled through their children (each child refunds its share).
 */
export async function cancelJob(ctx: Ctx, by: Operator, jobId: string, note: string): Promise<JobRow> {
  const now = ctx.clock.now();
  let attemptToStop: string | null = null;
  const row = await ctx.db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for('update').limit(1);
    if (!job) throw new AppError('not_found', `no job ${jobId}`);
    if (isTerminal(job.status)) throw new AppError('conflict', `job ${jobId} already ended (${job.status})`);
    const refusal = operatorRefusal(job, 'cancel');
    if (refusal) throw new AppError('conflict', refusal);
    const message = failureMessage('operator_cancelled', note || 'no reason given');
    const attemptId = job.currentAttemptId;
    const ended =
      job.paymentStatus === 'pending'
        ? await transitionJob(tx, {
            jobId,
            from: job.status,
            to: 'failed',
            reason: `failed: operator_cancelled by ${by.name}`,
            now,
            attemptId,
            patch: { errorCode: 'operator_cancelled', errorMessage: message, currentAttemptId: null, leaseExpiresAt: null, completedAt: now, expiresAt: now },
          })
        : await failJob(tx, { jobId, now, code: 'operator_cancelled', message, attemptId, from: [job.status] });
    if (!ended) throw new AppError('conflict', `job ${jobId} moved while being cancelled; look again`);
    if (attemptId) {
      await endAttempt(tx, attemptId, now, 'failed', { code: 'operator_cancelled', message });
      attemptToStop = attemptId;
    }
    await recordAction(tx, { operator: by.name, action: 'job.cancel', targetKind: 'job', targetId: jobId, detail: { from: job.status, note }, now });
    return ended;
  });
  if (attemptToStop) ctx.cancelAttempt(attemptToStop);
  nudgeParent(ctx, row);
  ctx.logger.info({ job_id: jobId, operator: by.name, attempt_id: attemptToStop }, 'job cancelled by an operator');
  return row;
}

/**
 * An operator runs a failed job again: back to its type's first stage with a fresh attempt budget
 * and a wake-up. Only agent jobs whose source is still held (their own, or their parent's), and not
 * parts of a bundle or product (those settled their money when the part failed). The caller is not
 * charged again: a job refunded when it failed stays refunded and its outputs are delivered all the same.
 */
export async function retryJob(ctx: Ctx, by: Operator, jobId: string): Promise<JobRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for('update').limit(1);
    if (!job) throw new AppError('not_found', `no job ${jobId}`);
    if (job.status !== 'failed') throw new AppError('conflict', `only a failed job can be retried (this one is ${job.status})`);
    const refusal = operatorRefusal(job, 'retry');
    if (refusal) throw new AppError('conflict', refusal);
    if (!(await sourceHeld(ctx, job))) throw new AppError('source_gone', 'the source this job works from is no longer stored');
    const first = definitionOf(job.jobType).stages[0];
    const row = await transitionJob(tx, {
      jobId,
      from: 'failed',
      to: first,
      reason: `retried by ${by.name}`,
      now,
      attemptId: null,
      patch: {
        errorCode: null,
        errorMessage: null,
        attemptCount: 0,
        currentAttemptId: null,
        leaseExpiresAt: null,
        progress: null,
        completedAt: null,
        expiresAt: null,
      },
    });
    if (!row) throw new AppError('conflict', `job ${jobId} moved while being retried; look again`);
    await enqueueWakeup(tx, job.id, job.jobType, now);
    await recordAction(tx, { operator: by.name, action: 'job.retry', targetKind: 'job', targetId: jobId, detail: { error_code: job.errorCode }, now });
    ctx.logger.info({ job_id: jobId, operator: by.name }, 'failed job retried by an operator');
    return row;
  });
}

async function sourceHeld(ctx: Ctx, job: JobRow): Promise<boolean> {
  if (!job.sourceJobId) return Boolean(job.sourceKey) && !job.sourceDeletedAt;
  const [parent] = await ctx.db.select().from(jobs).where(eq(jobs.id, job.sourceJobId)).limit(1);
  return Boolean(parent?.sourceKey) && !parent?.sourceDeletedAt && parent?.status === 'completed';
}
