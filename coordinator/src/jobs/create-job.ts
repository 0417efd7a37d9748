import { randomUUID } from 'node:crypto';
import type { CreateJobRequest, CreateJobResponse } from '@cutroom/shared/api';
import { IMPLEMENTED_JOB_TYPES, isUploadJobType } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, VIDEO_CONTENT_TYPES, mediaKindOf, normalizeContentType } from '@cutroom/shared/media-types';
import { priceOf } from '@cutroom/shared/prices';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { jobEvents, jobs, sessions } from '../db/schema.ts';
import { collectPayment, type PaymentInput } from '../payments/gate.ts';
import { depositInfo, ensureCheckout, jobCharge, reloadJob } from '../payments/job-payments.ts';
import { markJobPaid } from '../payments/mark-paid.ts';
import { newSessionRow } from '../sessions/session-service.ts';
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

export type JobCaller = { sessionId: string } | { sessionId: null; payment: PaymentInput };

export interface CreatedJob {
  body: CreateJobResponse & { session_token?: string; session_id?: string };
  headers: Record<string, string>;
}

/**
 * POST /jobs after schema validation.
 * - Billing off: the job is created already paid and goes straight to `uploading`.
 * - Billing on, session caller: the job is `pending`; the response offers hosted card checkout
 *   and the chain deposit details, and upload-url answers 402 until it is paid.
 * - Billing on, no session but a payment credential: paid creation. The job and a new session
 *   (returned as `session_token`, since the credential replaced the bearer) are written in the
 *   transaction that books the payment.
 */
export async function createJob(ctx: Ctx, caller: JobCaller, req: CreateJobRequest): Promise<CreatedJob> {
  if (!IMPLEMENTED_JOB_TYPES.has(req.job_type)) {
    throw new AppError('not_implemented_job_type', `job_type ${req.job_type} is not available yet; this service currently runs: ${[...IMPLEMENTED_JOB_TYPES].join(', ')}`);
  }
  checkFields(req);
  if (!isUploadJobType(req.job_type)) throw new AppError('invalid_request', `job_type ${req.job_type} is not available yet`);
  const upload = checkUploadFields(req);
  const price = priceOf(req.job_type, upload.media);
  const now = ctx.clock.now();
  const id = randomUUID();
  const values = {
    id,
    jobType: req.job_type,
    status: 'pending',
    paymentStatus: 'pending',
    originalFilename: upload.filename,
    contentType: upload.contentType,
    mediaKind: upload.media,
    priceCents: price.cardCents,
    priceChainUnits: price.chainUnits == null ? null : BigInt(price.chainUnits),
    params: { language: req.language ?? null, title: req.title ?? null, thread_id: req.thread_id ?? null },
    createdAt: now,
    updatedAt: now,
  };
  const base = { job_id: id, job_type: req.job_type, price_cents: price.cardCents, next_endpoint: 'upload-url' as const };

  if (!ctx.billing.enabled) {
    if (caller.sessionId === null) throw new AppError('unauthenticated', 'missing session token: send Authorization: Bearer <session_token> from POST /api/v1/sessions');
    await ctx.db.transaction(async (tx) => {
      await insertJob(tx, { ...values, sessionId: caller.sessionId }, now);
      // Billing off: prepaid at creation (amount 0), so the caller goes straight to upload-url.
      await transitionJob(tx, { jobId: id, from: 'pending', to: 'uploading', reason: 'prepaid (billing disabled)', now, patch: { paymentStatus: 'paid', amountPaidCents: 0 } });
    });
    return { body: { ...base, payment_status: 'paid' }, headers: {} };
  }

  if (caller.sessionId !== null) {
    const sessionId = caller.sessionId;
    await ctx.db.transaction((tx) => insertJob(tx, { ...values, sessionId }, now));
    const job = await reloadJob(ctx, id);
    const checkout = await ensureCheckout(ctx, job).catch((err: unknown) => {
      // The chain rail and MPP still work; the caller can retry POST /jobs/{id}/checkout.
      ctx.logger.warn({ job_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not create hosted checkout');
      return null;
    });
    const mpp = depositInfo(ctx, values.priceChainUnits);
    return { body: { ...base, payment_status: 'pending', ...(checkout ?? {}), ...(mpp && { mpp }) }, headers: {} };
  }

  const session = newSessionRow(now, ctx.config.SESSION_TTL_HOURS);
  // The offer must be the same on the 402 and on the paid retry, so it names no job id yet.
  const charge = { ...jobCharge({ ...values, id }), description: `cutroom ${req.job_type} (${upload.media}) job`, jobId: null, ledgerJobId: id };
  const paid = await collectPayment(ctx, caller.payment, charge, async (tx, settlement) => {
    await tx.insert(sessions).values(session.row);
    await insertJob(tx, { ...values, sessionId: session.row.id }, now);
    await markJobPaid(tx, id, settlement, now);
  });
  return {
    body: { ...base, payment_status: 'paid', session_id: session.row.id, session_token: session.token },
    headers: paid.headers,
  };
}

async function insertJob(tx: Tx, values: typeof jobs.$inferInsert, now: Date): Promise<void> {
  await tx.insert(jobs).values(values);
  await tx.insert(jobEvents).values({ jobId: values.id, fromStatus: null, toStatus: 'pending', reason: 'created', createdAt: now });
}
