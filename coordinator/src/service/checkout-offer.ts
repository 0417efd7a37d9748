import type { CreateJobResponse } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import { PaymentRequiredWithCheckout } from '../payments/checkout.ts';
import { hasCredential, PaymentRequiredError } from '../payments/gate.ts';
import { ensureCheckout } from '../payments/job-payments.ts';
import { ownedJob } from './caller.ts';
import { paymentInputOf, type Credentials } from './credentials.ts';
import type { Served } from './job-calls.ts';
import { createSessionCall } from './session-calls.ts';

/** A call that creates an upload job (a job type's or an agent product's) for the given credentials. */
export type CreateCall = (creds: Credentials) => Promise<Served<CreateJobResponse>>;

/**
 * Paid creation's 402 with the hosted checkout beside its challenges. A caller without a session
 * and without a credential (billing on) gets paid creation's 402: challenges bound to this request,
 * whose credential creates the job and a session. A browser host cannot answer those, so where the
 * card rail can take the price the same 402 also offers a hosted checkout: a new session is
 * created and owns a new pending job of the same request (with its checkout, as for any session's
 * job), and the answer carries its `job_id`, `checkout_url`, `card_checkout_session_id`,
 * `session_id` and `session_token`. The token goes to this caller only, in this answer (a 402 of
 * a request without credentials is never stored for replay: http/idempotency.ts): whoever pays
 * the checkout can reach the job with it, and knowing the job id alone reaches nothing. The
 * challenges keep paying by paid creation (their credential creates its own job and session; the
 * checkout's job then expires unpaid, nothing charged). When no checkout can be made (no card
 * rail, a price below its minimum, the processor down) the 402 is paid creation's alone.
 */
export async function createOfferingCheckout(ctx: Ctx, creds: Credentials, create: CreateCall): Promise<Served<CreateJobResponse>> {
  try {
    return await create(creds);
  } catch (err) {
    if (!(err instanceof PaymentRequiredError) || err.problem !== null || creds.bearer || !ctx.billing.card) throw err;
    if (hasCredential(paymentInputOf(ctx, creds))) throw err;
    let session: Awaited<ReturnType<typeof createSessionCall>>;
    let created: Served<CreateJobResponse>;
    try {
      session = await createSessionCall(ctx);
      created = await create({ ...creds, bearer: session.session_token, authorization: undefined, paymentSignature: undefined });
    } catch (cause) {
      // The checkout is an extra: paid creation's 402 stands without it.
      ctx.logger.warn({ err: cause instanceof Error ? cause.message : String(cause) }, 'no hosted checkout for a caller without a session');
      throw err;
    }
    const { job_id, price_cents, checkout_url, card_checkout_session_id } = created.value;
    // No checkout after all (the processor is down, or the price is below the card minimum): the
    // job stays pending, unreachable, and expires unpaid; the caller answers the challenges.
    if (!checkout_url || !card_checkout_session_id) throw err;
    throw new PaymentRequiredWithCheckout(err, {
      job_id,
      price_cents,
      checkout_url,
      card_checkout_session_id,
      session_id: session.session_id,
      session_token: session.session_token,
    });
  }
}

/**
 * The hosted checkout of a job its owner is asked to pay (MCP adds it to the -32042 of every paid
 * tool), created on first use; null where there is none to offer: no card rail, a price below its
 * minimum, no session, a job that is not the caller's or needs no payment, the processor down.
 * Never throws: the challenges stand without it.
 */
export async function checkoutOfferCall(
  ctx: Ctx,
  creds: Credentials,
  jobId: string,
): Promise<{ checkout_url: string; card_checkout_session_id: string } | null> {
  if (!ctx.billing.card || !creds.bearer) return null;
  try {
    const job = await ownedJob(ctx, creds, jobId);
    if (job.paymentStatus !== 'pending' || job.status === 'deleted') return null;
    return await ensureCheckout(ctx, job);
  } catch (err) {
    ctx.logger.warn({ job_id: jobId, err: err instanceof Error ? err.message : String(err) }, 'no hosted checkout to offer');
    return null;
  }
}

/** An upload job created for a caller, and how the caller goes on with it. */
export interface OpenedUploadJob {
  created: Served<CreateJobResponse>;
  /** The credentials to continue with: the session that owns the job, no payment credential left to spend. */
  creds: Credentials;
  /** A session this call created for the caller (its token goes to this caller only), or null. */
  newSession: { session_id: string; session_token: string } | null;
  /** Paid creation: the credential paid for the job as it was created (nothing is left to pay). */
  paidAtCreation: boolean;
}

/**
 * Creates an upload job for a caller who may have no session yet (the agent surface's upload
 * tools): with a session, the job is created pending (its payment is taken where its upload URL
 * is asked for); billing on and no session: paid creation, the credential creating job and session
 * (createOfferingCheckout: without a credential its 402, with a checkout for a browser host);
 * billing off and no session: a session is created for the caller first.
 */
export async function openUploadJobCall(ctx: Ctx, creds: Credentials, create: CreateCall): Promise<OpenedUploadJob> {
  if (!creds.bearer && ctx.billing.enabled) {
    const created = await createOfferingCheckout(ctx, creds, create);
    const token = created.value.session_token;
    if (!token || !created.value.session_id) throw new Error('paid creation answered no session');
    return {
      created,
      creds: { ...creds, bearer: token, authorization: undefined, paymentSignature: undefined },
      newSession: { session_id: created.value.session_id, session_token: token },
      paidAtCreation: true,
    };
  }
  const session = creds.bearer ? null : await createSessionCall(ctx);
  const own: Credentials = { ...creds, ...(session && { bearer: session.session_token }) };
  const created = await create({ ...own, authorization: undefined });
  return { created, creds: own, newSession: session && { session_id: session.session_id, session_token: session.session_token }, paidAtCreation: false };
}
