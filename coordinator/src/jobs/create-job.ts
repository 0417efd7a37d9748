import { randomUUID } from 'node:crypto';
import type { CreateJobRequest, CreateJobResponse } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { jobEvents, jobs, sessions } from '../db/schema.ts';
import { definitionFor } from '../job-types/registry.ts';
import type { JobTypeDefinition } from '../job-types/definition.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { collectPayment, type PaymentInput } from '../payments/gate.ts';
import { requestDigest } from '../payments/request-binding.ts';
import { depositInfo, ensureCheckout, jobCharge } from '../payments/job-payments.ts';
import { newSessionRow } from '../sessions/session-service.ts';
import { reloadJob } from './job-access.ts';
import { markJobPaid } from './mark-paid.ts';
import { OPEN_JOB_TTL_MS } from './open-job-expiry.ts';
import { transitionJob } from './transition-job.ts';

/** Who creates the job: a session, or (billing on, no session) the payment credential itself. */
export type JobCaller = { sessionId: string } | { sessionId: null; payment: PaymentInput };

export interface CreatedJob {
  body: CreateJobResponse;
  /** Payment receipt headers of paid creation (the protocol's wire form; empty otherwise). */
  receipt: Record<string, string>;
}

/** Fields of other job types are a 400 naming them, not silently ignored. */
function refuseForeignFields(def: JobTypeDefinition, req: CreateJobRequest): void {
  const allowed = new Set<string>(['job_type', ...Object.keys(def.request.shape)]);
  const extra = Object.keys(req).filter((k) => !allowed.has(k) && req[k as keyof CreateJobRequest] !== undefined);
  if (extra.length) throw new AppError('invalid_request', `${extra.join(', ')} ${extra.length === 1 ? 'does' : 'do'} not apply to job_type ${req.job_type}`);
}

/**
 * Creates a job after schema validation, from its type's definition.
 * - Billing off: the job is created already paid and goes straight to `uploading`.
 * - Billing on, session caller: the job is `pending`; the response offers hosted card checkout
 *   and the chain deposit details, and the gated calls answer 402 until it is paid.
 * - Billing on, no session but a payment credential: paid creation. The job and a new session
 *   (returned as `session_token`, since the credential replaced the bearer) are written in the
 *   transaction that books the payment.
 */
export async function createJob(ctx: Ctx, caller: JobCaller, req: CreateJobRequest): Promise<CreatedJob> {
  const def = definitionFor(req.job_type);
  refuseForeignFields(def, req);
  if (def.facts.input.kind !== 'upload') throw new AppError('not_implemented_job_type', `job_type ${req.job_type} is not available yet`);
  const prepared = def.prepare(req);
  const now = ctx.clock.now();
  const id = randomUUID();
  const values = {
    id,
    jobType: req.job_type,
    status: 'pending' as const,
    paymentStatus: 'pending' as const,
    originalFilename: prepared.originalFilename,
    contentType: prepared.contentType,
    mediaKind: prepared.mediaKind,
    priceCents: prepared.price.cardCents,
    priceChainUnits: prepared.price.chainUnits == null ? null : BigInt(prepared.price.chainUnits),
    params: prepared.params,
    createdAt: now,
    updatedAt: now,
    // Unpaid or never uploaded, it is deleted then (open-job-expiry.ts); an upload URL moves it.
    expiresAt: addMs(now, OPEN_JOB_TTL_MS),
  };
  const base = { job_id: id, job_type: req.job_type, price_cents: prepared.price.cardCents, next_endpoint: 'upload-url' as const };

  if (!ctx.billing.enabled) {
    if (caller.sessionId === null) throw missingSession();
    await ctx.db.transaction(async (tx) => {
      await insertJob(tx, { ...values, sessionId: caller.sessionId }, now);
      // Billing off: prepaid at creation (amount 0), so the caller goes straight to the upload.
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
    const job = await reloadJob(ctx.db, id);
    const checkout = await ensureCheckout(ctx, job).catch((err: unknown) => {
      // The chain rail and MPP still work; the caller can ask for the checkout again later.
      ctx.logger.warn({ job_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not create hosted checkout');
      return null;
    });
    const mpp = depositInfo(ctx, values.priceChainUnits);
    return { body: { ...base, payment_status: 'pending', ...(checkout ?? {}), ...(mpp && { mpp }) }, receipt: {} };
  }

  const session = newSessionRow(now, ctx.config.SESSION_TTL_HOURS);
  // The offer must be the same on the 402 and on the paid retry, so it names no job id yet.
  const charge = {
    ...jobCharge({ ...values, id }),
    description: `cutroom ${req.job_type}${prepared.mediaKind ? ` (${prepared.mediaKind})` : ''} job`,
    jobId: null,
    ledgerJobId: id,
    // The credential must answer a challenge issued for this very request body.
    requestBinding: requestDigest(req),
  };
  const paid = await collectPayment(ctx, caller.payment, charge, async (tx, settlement) => {
    await tx.insert(sessions).values(session.row);
    await insertJob(tx, { ...values, sessionId: session.row.id }, now);
    await markJobPaid(tx, id, settlement, now);
  });
  return {
    body: { ...base, payment_status: 'paid', session_id: session.row.id, session_token: session.token },
    receipt: paid.headers,
  };
}

export const missingSession = (): AppError =>
  new AppError('unauthenticated', 'missing session token: create a session (free) and send its session_token as the Bearer credential', {
    next: { call: 'create_session' },
  });

async function insertJob(tx: Tx, values: typeof jobs.$inferInsert, now: Date): Promise<void> {
  await tx.insert(jobs).values(values);
  await tx.insert(jobEvents).values({ jobId: values.id, fromStatus: null, toStatus: 'pending', reason: 'created', createdAt: now });
}
