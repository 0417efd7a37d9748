import type { CreateJobRequest, CreateJobResponse } from '@cutroom/shared/api';
import type { JobType } from '@cutroom/shared/job-types';
import {
  checkoutOfferCall,
  completeUploadCall,
  createJobCall,
  type Credentials,
  type OpenedUploadJob,
  openUploadJobCall,
  PaymentRequiredError,
  processCall,
  PaymentRequiredWithCheckout,
  type Served,
  uploadUrlCall,
} from '../../service/index.ts';
import { type PaymentContext, paymentErrorToMcp } from '../payment.ts';
import { paidJobOf, type ToolCall } from '../tool-call.ts';
import { AppError } from '../../lib/app-error.ts';
import { NEXT, type ToolResult } from './tool-result.ts';

/** The tool's arguments as the create request (session_token is the transport's, not the job's). */
export function requestOf(jobType: string, args: Record<string, unknown>): CreateJobRequest {
  const { session_token: _t, ...fields } = args;
  return { job_type: jobType, ...fields } as CreateJobRequest;
}

/**
 * A payment error as MCP's -32042/-32043 (to throw), with what else the agent needs to pay or go
 * on. A -32042 about a job of the caller's session always offers its hosted checkout where the
 * card rail can take the price (created on first use: checkoutOfferCall), whatever the tool.
 * Other errors come back as they are.
 */
export async function mcpPaymentError(call: ToolCall, err: unknown, context: PaymentContext): Promise<unknown> {
  let full = context;
  const jobId = context['job_id'];
  if (err instanceof PaymentRequiredError && typeof jobId === 'string' && context['checkout_url'] === undefined) {
    const checkout = await checkoutOfferCall(call.ctx, call.creds, jobId);
    if (checkout) full = { ...context, ...checkout };
  }
  // The ways to pay name the checkout: said only where there is one.
  const offered = typeof full['checkout_url'] === 'string' || (err instanceof PaymentRequiredWithCheckout && !!err.checkout.checkout_url);
  if (!offered && (full['next'] === NEXT.payUpload || full['next'] === NEXT.payStart)) {
    const { next: _next, ...rest } = full;
    full = rest;
  }
  return paymentErrorToMcp(err, full) ?? err;
}

/** What a created job tells an agent that pays another way (the hosted checkout for browser hosts). */
export function paymentContextOf(created: Partial<CreateJobResponse> & { job_id: string }, call: ToolCall, extra: PaymentContext = {}): PaymentContext {
  const known = {
    job_id: created.job_id,
    price_cents: created.price_cents,
    checkout_url: created.checkout_url,
    card_checkout_session_id: created.card_checkout_session_id,
    session_token: call.newSessionToken ?? undefined,
  };
  // What the created job does not say, `extra` may (a cut's price_cents): an absent field never hides it.
  return { ...extra, ...Object.fromEntries(Object.entries(known).filter(([, v]) => v !== undefined)) };
}

/**
 * A payment-gated step of a created job: `gated` pays while the job is unpaid (REST's gated call),
 * and its fields join what the job is; unpaid with no credential → -32042 naming the job, so the
 * retry (same arguments plus the credential) pays this job rather than creating another.
 */
async function paidStep(
  call: ToolCall,
  jobId: string,
  created: Partial<CreateJobResponse> | undefined,
  gated: () => Promise<{ fields: Record<string, unknown>; receipt: Record<string, string> }>,
  next: { done: string; pay: string },
): Promise<ToolResult> {
  try {
    const served = await gated();
    return {
      value: {
        job_id: jobId,
        ...(created?.job_type && { job_type: created.job_type }),
        ...(created?.price_cents !== undefined && { price_cents: created.price_cents }),
        payment_status: 'paid',
        ...served.fields,
        ...(call.newSessionToken && { session_token: call.newSessionToken }),
        next: next.done,
      },
      receipt: served.receipt,
    };
  } catch (err) {
    throw await mcpPaymentError(call, err, paymentContextOf({ ...created, job_id: jobId }, call, { next: next.pay }));
  }
}

/** The upload URL of a job, taking its payment first while it is unpaid (REST's GET upload-url). */
export function uploadStep(call: ToolCall, jobId: string, created?: Partial<CreateJobResponse>): Promise<ToolResult> {
  const gated = async () => {
    const served = await uploadUrlCall(call.ctx, call.creds, jobId);
    return { fields: { upload_url: served.value.upload_url }, receipt: served.receipt };
  };
  return paidStep(call, jobId, created, gated, { done: NEXT.upload, pay: NEXT.payUpload });
}

/** A job created with a source_url (media by URL): paid while unpaid and started by REST's POST process; the agent fetches the URL. */
export function startStep(call: ToolCall, jobId: string, created?: Partial<CreateJobResponse>): Promise<ToolResult> {
  const gated = async () => {
    const served = await processCall(call.ctx, call.creds, jobId);
    return { fields: { status: served.value.status }, receipt: served.receipt };
  };
  return paidStep(call, jobId, created, gated, { done: NEXT.wait, pay: NEXT.payStart });
}

/** The next step of a created upload tool job: its upload URL, or for a source_url its start. */
async function nextStep(call: ToolCall, jobId: string, created?: Partial<CreateJobResponse>): Promise<ToolResult> {
  if (created?.next_endpoint === 'process') return startStep(call, jobId, created);
  try {
    return await uploadStep(call, jobId, created);
  } catch (err) {
    // The paid retry of a source_url job (only its id is known here): it takes no upload.
    if (err instanceof AppError && err.code === 'wrong_endpoint' && err.next?.call === 'process') return startStep(call, jobId, created);
    throw err;
  }
}

/** Creates the job of an upload tool with the given credentials (a job type, or an agent product). */
export type CreateUploadJob = (creds: Credentials) => Promise<Served<CreateJobResponse>>;

/**
 * An upload job (transcribe, summarize, find_clips, the agent products): create it, pay it,
 * answer its upload URL. Who creates it and how it is paid is the service's (openUploadJobCall:
 * pending under the caller's session, paid creation without one, a session made first when
 * billing is off); the tool answers the next step, or the -32042 of the payment with what else
 * the agent needs (a checkout, the session made for it). The paid retry (credential in _meta,
 * its challenge naming the job) continues with that job.
 */
export async function uploadCreateTool(call: ToolCall, create: CreateUploadJob): Promise<ToolResult> {
  const paid = paidJobOf(call);
  if (paid) return nextStep(call, paid);
  let opened: OpenedUploadJob;
  try {
    opened = await openUploadJobCall(call.ctx, call.creds, create);
  } catch (err) {
    // Paid creation's -32042: its challenges, and (card rail) the hosted checkout of a job
    // owned by a session created for this caller, whose token is in data.session_token.
    throw await mcpPaymentError(call, err, err instanceof PaymentRequiredWithCheckout ? { next: NEXT.payUpload } : {});
  }
  const { created, creds, newSession } = opened;
  if (opened.paidAtCreation) {
    // Paid at creation: the upload URL is asked for with the new session, nothing left to pay.
    const next = await nextStep({ ...call, creds, credential: null }, created.value.job_id, created.value);
    return { value: { ...next.value, session_id: newSession?.session_id, session_token: newSession?.session_token }, receipt: created.receipt };
  }
  if (newSession) Object.assign(call, { creds, newSessionToken: newSession.session_token });
  return nextStep(call, created.value.job_id, created.value);
}

/** transcribe, summarize, find_clips. */
export function uploadJobTool(call: ToolCall, jobType: JobType, args: Record<string, unknown>): Promise<ToolResult> {
  return uploadCreateTool(call, (creds) => createJobCall(call.ctx, creds, requestOf(jobType, args)));
}

/** get_upload_url: a fresh URL, paying first when the job is still unpaid. */
export function getUploadUrlTool(call: ToolCall, args: { job_id: string }): Promise<ToolResult> {
  paidJobOf(call, args.job_id);
  return uploadStep(call, args.job_id);
}

/** complete_upload: the upload is verified and the job queued (paid first when it is still unpaid). */
export async function completeUploadTool(call: ToolCall, args: { job_id: string }): Promise<ToolResult> {
  paidJobOf(call, args.job_id);
  try {
    const served = await completeUploadCall(call.ctx, call.creds, args.job_id);
    return { value: { ...served.value, next: NEXT.wait }, receipt: served.receipt };
  } catch (err) {
    throw await mcpPaymentError(call, err, { job_id: args.job_id, next: NEXT.payUpload });
  }
}
