import { and, eq } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import { committedSourceKey, startUploadedJob, takesUpload } from '../job-types/lifecycle.ts';
import { AppError } from '../lib/app-error.ts';
import type { BlobHead } from '../storage/blob-store.ts';
import { reloadJob, uploadKeyOf } from './job-access.ts';
import { uploadUrlExpiry } from './open-job-expiry.ts';
import { isActive } from './transitions.ts';
import { SNIFF_BYTES, sniffMedia } from '@cutroom/shared/media-sniff';

export function requireUploadJob(job: JobRow): void {
  if (!takesUpload(job.jobType)) {
    throw new AppError('wrong_endpoint', `job_type ${job.jobType} takes no upload: start it with process`, { next: { call: 'process', jobId: job.id } });
  }
}

function requirePaid(job: JobRow): void {
  if (job.paymentStatus !== 'paid') throw new AppError('payment_required', 'this job is not paid yet');
}

/**
 * The upload URL of a job the caller owns and has paid: a presigned PUT bound to its content type.
 * The job then expires (objects deleted, payment refunded) when this URL has lapsed plus a margin
 * and the upload was not completed; asking again moves that deadline.
 */
export async function getUploadUrl(ctx: Ctx, job: JobRow) {
  requireUploadJob(job);
  requirePaid(job);
  if (job.status !== 'uploading') {
    throw new AppError('conflict', `the upload of this job is closed (status ${job.status})`);
  }
  const now = ctx.clock.now();
  const [open] = await ctx.db
    .update(jobs)
    .set({ expiresAt: uploadUrlExpiry(now, ctx.config), updatedAt: now })
    .where(and(eq(jobs.id, job.id), eq(jobs.status, 'uploading')))
    .returning({ id: jobs.id });
  if (!open) throw new AppError('conflict', 'the upload of this job is closed (it expired or was completed meanwhile)');
  const upload_url = await ctx.blobs.presignPut(uploadKeyOf(job.id), {
    expiresInSeconds: ctx.config.PRESIGN_TTL_SECONDS,
    contentType: job.contentType,
  });
  return { job_id: job.id, upload_url };
}

/** Refuses an empty or oversized stored file, deleting it (the caller uploads again). */
async function checkSize(ctx: Ctx, key: string, head: BlobHead): Promise<void> {
  if (head.size === 0) {
    await ctx.blobs.delete(key);
    throw new AppError('upload_missing', 'the uploaded file is empty: upload it again');
  }
  if (head.size > ctx.config.UPLOAD_MAX_BYTES) {
    await ctx.blobs.delete(key);
    throw new AppError('payload_too_large', `the uploaded file is ${head.size} bytes; the limit is ${ctx.config.UPLOAD_MAX_BYTES}`);
  }
}

/**
 * The upload must be audio or video by its first bytes (shared/src/media-sniff.ts): a text file, an
 * image or a document is refused now, with a 400 that says what it looks like, instead of failing
 * minutes later at the agent's probe. The bad file is deleted and the job stays open (paid,
 * `uploading`): the caller PUTs the recording again and calls complete-upload; a job never
 * completed expires and a paid one is refunded.
 */
async function checkSignature(ctx: Ctx, job: JobRow, key: string): Promise<void> {
  const sniffed = await sniffMedia(await ctx.blobs.getBytes(key, SNIFF_BYTES));
  if (sniffed.isMedia) return;
  await ctx.blobs.delete(key);
  throw new AppError(
    'unsupported_media',
    `the uploaded file is ${sniffed.looksLike}, not audio or video (declared ${job.contentType}): PUT the recording to the upload URL again, then call complete-upload; the job stays open and nothing more is charged`,
    { next: { call: 'upload_url', jobId: job.id } },
  );
}

/**
 * Commits the caller's upload: checks its size, then moves it from the key its URL writes to the
 * job's source key inside the store, and checks what was committed again. The upload URL may
 * still be valid, but nothing it writes can reach the committed source, so the file agents
 * process is the one measured here (S3 cannot bound a presigned PUT's size; this is the bound).
 * Returns the committed head, or null when nothing was uploaded. `source` is the job's own source
 * key, or for an agent product its find_clips child's (the child processes the upload).
 */
async function commitUpload(ctx: Ctx, job: JobRow, source: string): Promise<BlobHead | null> {
  const uploaded = uploadKeyOf(job.id);
  const head = await ctx.blobs.head(uploaded);
  if (!head) {
    // Already committed by an earlier call that did not get to queue the job (or written by a URL
    // issued before uploads were committed by a move): no URL writes the source key now.
    const committed = await ctx.blobs.head(source);
    if (committed) await checkSize(ctx, source, committed);
    return committed;
  }
  await checkSize(ctx, uploaded, head);
  await checkSignature(ctx, job, uploaded);
  const committed = await ctx.blobs.move(uploaded, source);
  if (committed) await checkSize(ctx, source, committed);
  return committed;
}

/**
 * Completes an upload: commits the stored object (within limits), then queues the job: status →
 * its type's first stage and an outbox wake-up, in one transaction. An agent product instead moves
 * to `analyzing` and starts its find_clips child on the upload (products/start-product.ts).
 * Repeating the call on a queued or running job answers `processing` again.
 */
export async function completeUpload(ctx: Ctx, job: JobRow) {
  requireUploadJob(job);
  requirePaid(job);
  const reply = { job_id: job.id, status: 'processing' as const };
  if (isActive(job.status)) return reply;
  if (job.status !== 'uploading') throw new AppError('conflict', `this job cannot start processing (status ${job.status})`);

  const key = committedSourceKey(job);
  const head = await commitUpload(ctx, job, key);
  if (!head) {
    if (isActive((await reloadJob(ctx.db, job.id)).status)) return reply; // a concurrent call committed and queued it
    throw new AppError('upload_missing', 'file not found in storage: PUT the file to the upload_url first', { next: { call: 'upload_url', jobId: job.id } });
  }
  const now = ctx.clock.now();
  const moved = await ctx.db.transaction((tx) => startUploadedJob(tx, job, { key, size: head.size }, now));
  if (moved) {
    ctx.notifyOutbox();
    return reply;
  }
  // Someone moved the job first: a concurrent complete-upload (then it is queued), or the sweeper
  // expired it (then the source just committed goes too: its purge may already have run).
  const current = await reloadJob(ctx.db, job.id);
  if (isActive(current.status)) return reply;
  if (current.status === 'deleted') {
    await ctx.blobs.delete(key).catch((err: unknown) => ctx.logger.warn({ err, job_id: job.id }, 'could not delete the source of an expired job'));
  }
  throw new AppError('conflict', `this job cannot start processing (status ${current.status})`);
}
