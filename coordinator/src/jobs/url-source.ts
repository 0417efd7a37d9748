import type { Ctx } from '../context.ts';
import type { JobRow } from '../db/schema.ts';
import { queueAgentJob } from '../job-types/start-agent-job.ts';
import { sourceUrlOf } from '../job-types/upload-common.ts';
import { AppError } from '../lib/app-error.ts';
import type { PaymentInput } from '../payments/gate.ts';
import { outputKeyOf, reloadJob } from './job-access.ts';
import { payIfDue } from './pay-job.ts';
import { isActive } from './transitions.ts';

/**
 * Media by URL (a transcribe, summarize or find_clips job created with `source_url`): no upload.
 * `POST /jobs/{id}/process` takes the payment while the job is unpaid (402 without a credential, as
 * for uploads) and queues the job; the agent that claims it fetches the URL (its assignment's
 * `source.fetch`, agents/claim.ts), stores the file as this attempt's `source` and processes it;
 * the completed attempt's copy becomes the job's source (agents/attempts.ts), so later cuts read it
 * from our storage. Repeating the call on a queued or running job answers `processing` again.
 */
export async function startUrlJob(
  ctx: Ctx,
  job: JobRow,
  payment: PaymentInput,
): Promise<{ value: { job_id: string; status: 'processing' }; receipt: Record<string, string> }> {
  const reply = { job_id: job.id, status: 'processing' as const };
  if (isActive(job.status)) return { value: reply, receipt: {} };
  if (job.status === 'deleted') throw new AppError('conflict', `job ${job.id} has expired or was deleted (status deleted); create a new job`);
  if (job.status !== 'pending' && job.status !== 'uploading')
    throw new AppError('conflict', `job ${job.id} has already run (status ${job.status}); create a new job`);
  const paid = await payIfDue(ctx, job, payment);
  let current = paid.job;
  if (current.status === 'uploading') {
    await ctx.db.transaction((tx) => queueAgentJob(tx, current, { from: 'uploading', now: ctx.clock.now(), reason: 'source_url fetch queued' }));
    current = await reloadJob(ctx.db, job.id);
  }
  if (!isActive(current.status) && current.status !== 'completed' && current.status !== 'failed') {
    throw new AppError('conflict', `job ${job.id} could not start (status ${current.status})`);
  }
  ctx.notifyOutbox();
  return { value: reply, receipt: paid.receipt };
}

/** A job created with a source_url takes no upload: its upload calls are a 400 naming process. */
export function refuseUploadOfUrlJob(job: JobRow): void {
  if (sourceUrlOf(job) === null) return;
  throw new AppError('wrong_endpoint', `job ${job.id} fetches its source_url: there is nothing to upload; start it with process`, {
    next: { call: 'process', jobId: job.id },
  });
}

/** Where an attempt stores the file it fetched from a source_url: one of its own outputs' keys (the blob write guard admits it while the attempt holds the job). */
export const urlSourceKeyOf = (jobId: string, attemptId: string): string => outputKeyOf(jobId, attemptId, 'source');
