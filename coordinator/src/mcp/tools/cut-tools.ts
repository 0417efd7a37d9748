import type { BundleClip, BundleJobType, CreateBundleResponse } from '@cutroom/shared/bundles';
import type { JobType } from '@cutroom/shared/job-types';
import { AppError } from '../../lib/app-error.ts';
import type { Job } from '@cutroom/shared/api';
import { bundleOfCandidates, type ClipsFromJobRequest, createBundleCall, createJobCall, getJobCall, payBundleCall, processCall } from '../../service/index.ts';
import { paidJobOf, type ToolCall } from '../tool-call.ts';
import { NEXT, type ToolResult } from './tool-result.ts';
import { mcpPaymentError, paymentContextOf, requestOf } from './upload-tools.ts';

/** Creating a cut needs the session that owns its parent: refused before anything else, naming the fix. */
function requireSession(call: ToolCall, tool: string): void {
  if (!call.creds.bearer) {
    throw new AppError(
      'unauthenticated',
      `${tool} cuts from a job of your session: pass that session's session_token (or Authorization: Bearer); creating the cut is free, it is paid when it starts`,
      { next: { call: 'create_session' } },
    );
  }
}

/**
 * Pays for and starts a created cut (REST's POST /jobs/{id}/process): unpaid and no credential
 * → -32042 naming the job; the paid retry (credential in _meta) starts this job.
 */
async function processStep(call: ToolCall, jobId: string, context: Record<string, unknown> = {}): Promise<ToolResult> {
  try {
    const served = await processCall(call.ctx, call.creds, jobId);
    return { value: { ...context, ...served.value, next: NEXT.wait }, receipt: served.receipt };
  } catch (err) {
    throw await mcpPaymentError(call, err, paymentContextOf({ job_id: jobId }, call, { ...context, next: NEXT.payStart }));
  }
}

/** extract_clip, extract_vertical_clip, edit_from_transcript: create (free, checked against the parent), then pay and start. */
export async function cutTool(call: ToolCall, jobType: JobType, args: Record<string, unknown>): Promise<ToolResult> {
  const paid = paidJobOf(call);
  if (paid) return processStep(call, paid);
  requireSession(call, jobType);
  const created = await createJobCall(call.ctx, { ...call.creds, authorization: undefined }, requestOf(jobType, args));
  const { job_id, job_type, price_cents, source_job_id } = created.value;
  return processStep(call, job_id, { job_id, job_type, price_cents, source_job_id });
}

function bundleSummaryOf(job: Job) {
  return { job_type: job.job_type, source_job_id: job.source_job_id, quantity: job.children?.length, children: job.children };
}

/** A created bundle paid by credential (both rails over MCP), or -32042 naming it and its hosted checkout. */
async function payBundleStep(call: ToolCall, bundleId: string, created?: CreateBundleResponse): Promise<ToolResult> {
  const summary = created && {
    job_type: created.job_type,
    price_cents: created.price_cents,
    unit_price_cents: created.unit_price_cents,
    quantity: created.quantity,
    source_job_id: created.source_job_id,
    children: created.children,
  };
  try {
    const served = await payBundleCall(call.ctx, call.creds, bundleId);
    // The paid retry of an earlier call: describe the bundle it paid from the job itself.
    const known = summary ?? (call.creds.bearer ? bundleSummaryOf(await getJobCall(call.ctx, call.creds, bundleId)) : {});
    return { value: { ...known, ...served.value, next: NEXT.wait }, receipt: served.receipt };
  } catch (err) {
    const { checkout_url, card_checkout_session_id, price_cents } = created ?? {};
    throw await mcpPaymentError(
      call,
      err,
      paymentContextOf({ job_id: bundleId, checkout_url, card_checkout_session_id, price_cents }, call, { ...summary, next: NEXT.payStart }),
    );
  }
}

async function bundleOf(call: ToolCall, type: BundleJobType, parentId: string, clips: BundleClip[]): Promise<ToolResult> {
  const paid = paidJobOf(call);
  if (paid) return payBundleStep(call, paid);
  requireSession(call, type);
  // MCP sells both bundle types, on both rails (the chain USDC per-clip rate is offered only here).
  const created = await createBundleCall(call.ctx, { ...call.creds, authorization: undefined }, parentId, { job_type: type, clips }, 'mcp');
  return payBundleStep(call, created.value.job_id, created.value);
}

/** clips_vertical, clips_horizontal: the bundle as the caller lists it. */
export function bundleTool(call: ToolCall, type: BundleJobType, args: { source_job_id: string; clips: BundleClip[] }): Promise<ToolResult> {
  return bundleOf(call, type, args.source_job_id, args.clips);
}

/** clips_from_job: chosen candidates, one clip each, in the orientation asked (a bundle underneath: service/bundle-calls.ts). */
export function clipsFromJobTool(call: ToolCall, args: ClipsFromJobRequest & { source_job_id: string }): Promise<ToolResult> {
  const bundle = bundleOfCandidates(args);
  return bundleOf(call, bundle.job_type, args.source_job_id, bundle.clips);
}
