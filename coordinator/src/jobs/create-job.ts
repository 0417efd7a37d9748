import { randomUUID } from 'node:crypto';
import type { CreateJobRequest, CreateJobResponse } from '@cutroom/shared/api';
import { IMPLEMENTED_JOB_TYPES, isUploadJobType } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, VIDEO_CONTENT_TYPES, mediaKindOf, normalizeContentType } from '@cutroom/shared/media-types';
import { priceOf } from '@cutroom/shared/prices';
import type { Ctx } from '../context.ts';
import { jobEvents, jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { transitionJob } from './transition-job.ts';

/** Fields each implemented job type accepts beyond job_type; anything else is a 400, not ignored. */
const FIELDS_BY_TYPE: Record<string, readonly (keyof CreateJobRequest)[]> = {
  transcribe: ['filename', 'content_type', 'language', 'thread_id', 'title'],
};

function checkFields(req: CreateJobRequest): void {
  const allowed = new Set<string>(['job_type', ...(FIELDS_BY_TYPE[req.job_type] ?? [])]);
  const extra = Object.keys(req).filter((k) => !allowed.has(k) && req[k as keyof CreateJobRequest] !== undefined);
  if (extra.length) throw new AppError('invalid_request', `${extra.join(', ')} ${extra.length === 1 ? 'does' : 'do'} not apply to job_type ${req.job_type}`);
}

function checkUploadFields(req: CreateJobRequest): { filename: string; contentType: string; media: 'audio' | 'video' } {
  if (!req.filename) throw new AppError('invalid_request', `filename is required for job_type ${req.job_type}`);
  if (!req.content_type) throw new AppError('invalid_request', `content_type is required for job_type ${req.job_type}`);
  const media = mediaKindOf(req.content_type);
  if (!media) {
    throw new AppError('unsupported_media', `content_type ${req.content_type} is not accepted; audio: ${AUDIO_CONTENT_TYPES.join(', ')}; video: ${VIDEO_CONTENT_TYPES.join(', ')}`);
  }
  return { filename: req.filename, contentType: normalizeContentType(req.content_type), media };
}

/**
 * POST /jobs after schema validation. With billing off (no payment configuration) a job is
 * created already paid and goes straight to `uploading`.
 */
export async function createJob(ctx: Ctx, sessionId: string, req: CreateJobRequest): Promise<CreateJobResponse> {
  if (!IMPLEMENTED_JOB_TYPES.has(req.job_type)) {
    throw new AppError('not_implemented_job_type', `job_type ${req.job_type} is not available yet; this service currently runs: ${[...IMPLEMENTED_JOB_TYPES].join(', ')}`);
  }
  checkFields(req);
  if (!isUploadJobType(req.job_type)) throw new AppError('invalid_request', `job_type ${req.job_type} is not available yet`);
  const upload = checkUploadFields(req);
  const price = priceOf(req.job_type, upload.media);
  const now = ctx.clock.now();
  const id = randomUUID();
  await ctx.db.transaction(async (tx) => {
    await tx.insert(jobs).values({
      id,
      sessionId,
      jobType: req.job_type,
      status: 'pending',
      paymentStatus: 'pending',
      originalFilename: upload.filename,
      contentType: upload.contentType,
      mediaKind: upload.media,
      priceCents: price.cardCents,
      params: { language: req.language ?? null, title: req.title ?? null, thread_id: req.thread_id ?? null },
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(jobEvents).values({ jobId: id, fromStatus: null, toStatus: 'pending', reason: 'created', createdAt: now });
    // Billing off: prepaid at creation (amount 0), so the caller goes straight to upload-url.
    await transitionJob(tx, {
      jobId: id, from: 'pending', to: 'uploading', reason: 'prepaid (billing disabled)', now,
      patch: { paymentStatus: 'paid', amountPaidCents: 0 },
    });
  });
  return { job_id: id, job_type: req.job_type, payment_status: 'paid', price_cents: price.cardCents, next_endpoint: 'upload-url' };
}
