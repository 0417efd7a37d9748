import { randomUUID } from 'node:crypto';
import type { CreateJobResponse } from '@cutroom/shared/api';
import { priceOf } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import { ClipsFromVideoRequest, ClipsYoutubeRequest, type AgentProduct } from '@cutroom/shared/products';
import type { Ctx } from '../../context.ts';
import { sessions } from '../../db/schema.ts';
import type { PreparedJob } from '../../job-types/definition.ts';
import { definitionOf } from '../../job-types/registry.ts';
import { AppError } from '../../lib/app-error.ts';
import { collectPayment } from '../../payments/gate.ts';
import { ensureCheckout, jobCharge } from '../../payments/job-payments.ts';
import { requestDigest } from '../../payments/request-binding.ts';
import { newSessionRow } from '../../sessions/session-service.ts';
import { insertJob, missingSession, newJobRow, type CreatedJob, type JobCaller } from '../create-job.ts';
import { reloadJob } from '../job-access.ts';
import { markJobPaid } from '../mark-paid.ts';
import { transitionJob } from '../transition-job.ts';
import type { ProductParams } from './product-params.ts';

const SCHEMAS = { clips_from_video: ClipsFromVideoRequest, clips_youtube: ClipsYoutubeRequest } as const;

/**
 * Checks a product request and prepares its row, nothing written: the schema (every failing field
 * named), then the find_clips child through find_clips' own prepare() (filename, content type,
 * query), then that the upload is a video (the clips need one). Its clips are prepared later,
 * against the find_clips child's probe and candidates (product-steps.ts).
 */
export function prepareProduct(product: AgentProduct, raw: unknown): { id: string; prepared: PreparedJob } {
  const parsed = SCHEMAS[product].safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`);
    throw new AppError('invalid_request', `invalid ${product} request: ${problems.join('; ')}`);
  }
  const request = parsed.data;
  const find = definitionOf('find_clips').prepare(
    { job_type: 'find_clips', filename: request.filename, content_type: request.content_type, query: request.query, language: request.language },
    null,
  );
  if (find.mediaKind !== 'video') {
    throw new AppError(
      'unsupported_media',
      `${product} cuts clips from a video; content_type ${request.content_type} is ${find.mediaKind}: send a video (or use find_clips for audio)`,
    );
  }
  const params: ProductParams = {
    ...({ product, request } as ProductParams),
    find_clips: { job_id: randomUUID(), params: find.params, price_cents: find.price.cardCents },
    max_clips: request.max_clips ?? LIMITS.clipsPerBatchMax,
  };
  const price = priceOf(product, 'video')!;
  return {
    id: randomUUID(),
    prepared: { originalFilename: find.originalFilename, contentType: find.contentType, mediaKind: 'video', price, params: { ...params } },
  };
}

/**
 * Creates an agent product (clips_from_video, clips_youtube): one upload job that becomes a
 * find_clips child and up to max_clips clip children (jobs/products/). Card only: its price is a
 * hold of the worst case, captured for what is delivered when the last step ends.
 * - Billing off: created paid (amount 0) and uploading, like any upload job.
 * - Billing on, session caller: pending, with a hosted checkout that only authorizes (manual
 *   capture); the gated upload-url / complete-upload take an MPP `stripe` credential as a hold.
 * - Billing on, no session, a payment credential: paid creation, as POST /jobs: the credential's
 *   challenge is bound to this request; its hold creates the job and a session (token returned).
 * Billing on without a card rail: refused (400) before anything is written.
 */
export async function createProduct(ctx: Ctx, caller: JobCaller, product: AgentProduct, raw: unknown): Promise<CreatedJob> {
  const { id, prepared } = prepareProduct(product, raw);
  if (ctx.billing.enabled && !ctx.billing.card) {
    throw new AppError(
      'invalid_request',
      `${product} is paid by card only (a hold of USD 4.50, charged for what is delivered), and card payments are not configured on this server`,
    );
  }
  const now = ctx.clock.now();
  const values = newJobRow(id, product, prepared, now);
  const base = { job_id: id, job_type: product, price_cents: prepared.price.cardCents, next_endpoint: 'upload-url' as const };

  if (!ctx.billing.enabled) {
    if (caller.sessionId === null) throw missingSession();
    const sessionId = caller.sessionId;
    await ctx.db.transaction(async (tx) => {
      await insertJob(tx, { ...values, sessionId }, now);
      await transitionJob(tx, {
        jobId: id,
        from: 'pending',
        to: 'uploading',
        reason: 'prepaid (billing disabled)',
        now,
        patch: { paymentStatus: 'paid', amountPaidCents: 0 },
      });
    });
    return { body: { ...base, payment_status: 'paid' }, receipt: {} };
  }

  if (caller.sessionId !== null) {
    const sessionId = caller.sessionId;
    await ctx.db.transaction((tx) => insertJob(tx, { ...values, sessionId }, now));
    const checkout = await ensureCheckout(ctx, await reloadJob(ctx.db, id)).catch((err: unknown) => {
      // The MPP card method still works; the caller can ask for the checkout again later.
      ctx.logger.warn({ job_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not create hosted checkout');
      return null;
    });
    return { body: { ...base, payment_status: 'pending', ...(checkout ?? {}) } satisfies CreateJobResponse, receipt: {} };
  }

  const session = newSessionRow(now, ctx.config.SESSION_TTL_HOURS);
  const request = (prepared.params as unknown as ProductParams).request;
  // The offer must be the same on the 402 and on the paid retry, so it names no job id yet.
  const charge = {
    ...jobCharge({ ...values, id }),
    description: `cutroom ${product} job: a hold of up to USD ${(prepared.price.cardCents / 100).toFixed(2)}, charged for what is delivered`,
    jobId: null,
    ledgerJobId: id,
    requestBinding: requestDigest({ job_type: product, ...request }),
  };
  const paid = await collectPayment(ctx, caller.payment, charge, async (tx, settlement) => {
    await tx.insert(sessions).values(session.row);
    await insertJob(tx, { ...values, sessionId: session.row.id }, now);
    await markJobPaid(tx, id, settlement, now);
  });
  return { body: { ...base, payment_status: 'paid', session_id: session.row.id, session_token: session.token }, receipt: paid.headers };
}
