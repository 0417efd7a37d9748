import { randomUUID } from 'node:crypto';
import { creationEstimate } from './queue-standing.ts';
import type { CreateJobRequest, CreateJobResponse } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import { eq } from 'drizzle-orm';
import { jobOutputs, sessions } from '../db/schema.ts';
import type { CoordinatorRunDefinition } from '../job-types/entry.ts';
import { creatableEntry } from '../job-types/lifecycle.ts';
import { sourceUrlRefusal } from '../job-types/upload-common.ts';
import type { JobTypeDefinition, ParentView, PreparedJob } from '../job-types/definition.ts';
import type { JobType } from '@cutroom/shared/job-types';
import { AppError } from '../lib/app-error.ts';
import { collectPayment, type PaymentInput } from '../payments/gate.ts';
import { requestDigest } from '../payments/request-binding.ts';
import { depositInfo, ensureCheckout, jobCharge } from '../payments/job-payments.ts';
import { newSessionRow } from '../sessions/session-service.ts';
import { reloadJob } from './job-access.ts';
import { markJobPaid } from './mark-paid.ts';
import { insertJob, newJobRow } from './job-rows.ts';
import { parentMediaOf, parentTranscriptOf, usableParent } from './parent-source.ts';
import { transitionJob } from './transition-job.ts';

/** Who creates the job: a session, or (billing on, no session) the payment credential itself. */
export type JobCaller = { sessionId: string } | { sessionId: null; payment: PaymentInput };

export interface CreatedJob {
  body: CreateJobResponse;
  /** Payment receipt headers of paid creation (the protocol's wire form; empty otherwise). */
  receipt: Record<string, string>;
}

/** What creating a derivative reads of its type: an agent-run definition or a coordinator-run one (publish_video). */
type DerivativeDefinition =
  | Pick<JobTypeDefinition, 'type' | 'facts' | 'request' | 'prepare' | 'needsParentTranscript' | 'fieldHints'>
  | CoordinatorRunDefinition;

/** Fields of other job types are a 400 naming them (and what to send instead), not silently ignored. */
function refuseForeignFields(def: DerivativeDefinition, req: CreateJobRequest): void {
  const allowed = new Set<string>(['job_type', ...Object.keys(def.request.shape)]);
  const extra = Object.keys(req).filter((k) => !allowed.has(k) && req[k as keyof CreateJobRequest] !== undefined);
  if (!extra.length) return;
  const hint = extra.map((k) => def.fieldHints?.[k]).find(Boolean);
  throw new AppError(
    'invalid_request',
    `${extra.join(', ')} ${extra.length === 1 ? 'does' : 'do'} not apply to job_type ${req.job_type}: ${hint ?? `it takes ${[...allowed].filter((k) => k !== 'job_type').join(', ')}`}`,
  );
}

/** The checked parent of a derivative, as its definition's prepare() reads it. */
async function parentViewOf(ctx: Ctx, def: DerivativeDefinition, sessionId: string, parentId: string): Promise<ParentView> {
  const job = await usableParent(ctx, def.type, def.facts, sessionId, parentId);
  const roles = await ctx.db.select({ role: jobOutputs.role }).from(jobOutputs).where(eq(jobOutputs.jobId, job.id));
  const view: ParentView = { job, media: parentMediaOf(job), roles: roles.map((r) => r.role) };
  // Read before prepare(), which is synchronous: the request is checked against the words before anything is paid.
  if ('needsParentTranscript' in def && def.needsParentTranscript) view.transcript = await parentTranscriptOf(ctx, job.id);
  return view;
}

/**
 * A no-upload derivative (extract_clip, extract_vertical_clip): created free by the session that
 * owns its parent, priced, and paid and started by /process (next_endpoint `process`; no hosted
 * checkout). Billing off: created paid (amount 0), /process just starts it.
 */
async function createDerivative(ctx: Ctx, def: DerivativeDefinition, caller: JobCaller, req: CreateJobRequest): Promise<CreatedJob> {
  if (caller.sessionId === null) {
    throw new AppError(
      'unauthenticated',
      `${req.job_type} cuts from a job of your session: send that session's token as the Bearer credential (creating it is free; you pay at process)`,
      {
        next: { call: 'create_session' },
      },
    );
  }
  const parent = req.source_job_id ? await parentViewOf(ctx, def, caller.sessionId, req.source_job_id) : null;
  const prepared = def.prepare(req, parent);
  // A coordinator-run type's own checks (publish_video: a connected account), before anything is written.
  if ('precheck' in def) await def.precheck(ctx, caller.sessionId);
  const now = ctx.clock.now();
  const id = randomUUID();
  const billingOff = !ctx.billing.enabled;
  await ctx.db.transaction((tx) =>
    insertJob(
      tx,
      {
        ...newJobRow(id, req.job_type, prepared, now),
        sessionId: caller.sessionId,
        ...(billingOff && { paymentStatus: 'paid' as const, amountPaidCents: 0 }),
        sourceJobId: parent!.job.id,
      },
      now,
    ),
  );
  const mpp = billingOff ? null : depositInfo(ctx, prepared.price.chainUnits == null ? null : BigInt(prepared.price.chainUnits));
  const estimate = await creationEstimate(ctx, req.job_type);
  return {
    body: {
      job_id: id,
      job_type: req.job_type,
      payment_status: billingOff ? 'paid' : 'pending',
      price_cents: prepared.price.cardCents,
      source_job_id: parent!.job.id,
      next_endpoint: 'process',
      ...(mpp && { mpp }),
      ...(estimate && { estimate }),
    },
    receipt: {},
  };
}

/**
 * Creates a job after schema validation, from its type's definition: a derivative, or an
 * upload job (createUploadJob).
 */
export async function createJob(ctx: Ctx, caller: JobCaller, req: CreateJobRequest): Promise<CreatedJob> {
  const entry = creatableEntry(req.job_type);
  if (entry.runner === 'coordinator') entry.definition.requireConfigured(ctx);
  const def = entry.definition;
  refuseForeignFields(def, req);
  if (def.facts.input.kind === 'parent') return createDerivative(ctx, def, caller, req);
  const prepared = def.prepare(req, null);
  return createUploadJob(ctx, caller, {
    id: randomUUID(),
    jobType: req.job_type,
    prepared,
    description: `cutroom ${req.job_type}${prepared.mediaKind ? ` (${prepared.mediaKind})` : ''} job`,
    request: req,
  });
}

/**
 * Writes an upload-based job (a job type's, or an agent product's: composites/products/) for its caller:
 * - Billing off: the job is created already paid and goes straight to `uploading`.
 * - Billing on, session caller: the job is `pending`; the response offers hosted card checkout
 *   and the chain deposit details (when the job takes the chain), and the gated calls answer 402
 *   until it is paid.
 * - Billing on, no session but a payment credential: paid creation. The job and a new session
 *   (returned as `session_token`, since the credential replaced the bearer) are written in the
 *   transaction that books the payment; the challenge is bound to `request` (its digest).
 */
export async function createUploadJob(
  ctx: Ctx,
  caller: JobCaller,
  job: { id: string; jobType: JobType; prepared: PreparedJob; description: string; request: unknown },
): Promise<CreatedJob> {
  const { id, prepared } = job;
  // Media by URL: no upload; POST /jobs/{id}/process (paying while unpaid) starts the agent's fetch.
  const sourceUrl = typeof prepared.params['source_url'] === 'string' ? prepared.params['source_url'] : null;
  const refusal =
    sourceUrl && sourceUrlRefusal(sourceUrl, { allowHttp: ctx.config.SOURCE_URL_ALLOW_HTTP, allowAddresses: ctx.config.SOURCE_URL_TEST_ALLOW_ADDRESSES });
  if (refusal) throw new AppError('invalid_request', refusal);
  const now = ctx.clock.now();
  const values = newJobRow(id, job.jobType, prepared, now);
  const estimate = await creationEstimate(ctx, job.jobType);
  const base = {
    job_id: id,
    job_type: job.jobType,
    price_cents: prepared.price.cardCents,
    next_endpoint: sourceUrl ? ('process' as const) : ('upload-url' as const),
    ...(estimate && { estimate }),
  };

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
    const row = await reloadJob(ctx.db, id);
    const checkout = await ensureCheckout(ctx, row).catch((err: unknown) => {
      // MPP (and the chain rail, where the job takes it) still work; the caller can ask for the checkout again later.
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
    description: job.description,
    jobId: null,
    ledgerJobId: id,
    // The credential must answer a challenge issued for this very request body.
    requestBinding: requestDigest(job.request),
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
