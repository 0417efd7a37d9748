import { isUploadJobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import type { JobRow } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { definitionOf } from '../job-types/registry.ts';
import { AppError } from '../lib/app-error.ts';
import { sourceKeyOf } from './job-access.ts';
import { transitionJob } from './transition-job.ts';
import { isActive } from './transitions.ts';

export function requireUploadJob(job: JobRow): void {
  if (!isUploadJobType(job.jobType)) {
    throw new AppError('wrong_endpoint', `job_type ${job.jobType} takes no upload: start it with process`, { next: { call: 'process', jobId: job.id } });
  }
}

function requirePaid(job: JobRow): void {
  if (job.paymentStatus !== 'paid') throw new AppError('payment_required', 'this job is not paid yet');
}

/** The upload URL of a job the caller owns and has paid: a presigned PUT bound to its content type. */
export async function getUploadUrl(ctx: Ctx, job: JobRow) {
  requireUploadJob(job);
  requirePaid(job);
  if (job.status !== 'uploading') {
    throw new AppError('conflict', `the upload of this job is closed (status ${job.status})`);
  }
  const upload_url = await ctx.blobs.presignPut(sourceKeyOf(job.id), {
    expiresInSeconds: ctx.config.PRESIGN_TTL_SECONDS,
    contentType: job.contentType,
  });
  return { job_id: job.id, upload_url };
}

/**
 * Completes an upload: checks the object reached storage (and is within limits), then queues
 * the job: status → its type's first stage and an outbox wake-up, in one transaction.
 * Repeating the call on a queued or running job answers `processing` again.
 */
export async function completeUpload(ctx: Ctx, job: JobRow) {
  requireUploadJob(job);
  requirePaid(job);
  const reply = { job_id: job.id, status: 'processing' as const };
  if (isActive(job.status)) return reply;
  if (job.status !== 'uploading') throw new AppError('conflict', `this job cannot start processing (status ${job.status})`);

  const key = sourceKeyOf(job.id);
  const head = await ctx.blobs.head(key);
  if (!head)
    throw new AppError('upload_missing', 'file not found in storage: PUT the file to the upload_url first', { next: { call: 'upload_url', jobId: job.id } });
  if (head.size === 0) {
    await ctx.blobs.delete(key);
    throw new AppError('upload_missing', 'the uploaded file is empty: upload it again');
  }
  if (head.size > ctx.config.UPLOAD_MAX_BYTES) {
    await ctx.blobs.delete(key);
    throw new AppError('payload_too_large', `the uploaded file is ${head.size} bytes; the limit is ${ctx.config.UPLOAD_MAX_BYTES}`);
  }
  const now = ctx.clock.now();
  const moved = await ctx.db.transaction(async (tx) => {
    const row = await transitionJob(tx, {
      jobId: job.id,
      from: 'uploading',
      to: definitionOf(job.jobType).stages[0],
      reason: 'upload completed',
      now,
      patch: { sourceKey: key, fileSize: head.size },
    });
    if (row) await enqueueWakeup(tx, job.id, job.jobType, now);
    return row;
  });
  if (moved) ctx.notifyOutbox();
  return reply;
}
