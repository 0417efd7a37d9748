import type { Job, ListJobsQuery } from '@cutroom/shared/api';
import { createSessionCall, downloadCall, getJobCall, jobEventsCall, listJobsCall, smokeTestCall } from '../../service/index.ts';
import type { ProgressReport, ToolCall } from '../tool-call.ts';
import type { ToolResult } from './tool-result.ts';
import { mcpPaymentError } from './upload-tools.ts';

const FINAL = new Set(['completed', 'failed', 'deleted']);

/** Stages in the order a job can pass them: progress = stage index + fraction, so it only grows. */
const STAGE_ORDER = ['pending', 'uploading', 'extracting_audio', 'transcribing', 'analyzing', 'publishing', 'completed'];

/** A job's reported step as one increasing number (MCP asks progress to increase with every notification). */
export function progressValue(stage: string, fraction: number): number {
  const i = STAGE_ORDER.indexOf(stage);
  return Math.max(0, i) + Math.min(1, Math.max(0, fraction));
}

/**
 * Waits for the job to end (or the time to run out, or the caller to cancel), sending a progress
 * notification for each status change and progress report of the service's job event stream
 * (service/event-calls.ts: the REST event stream's, with the same ownership check and the same
 * caps on long-lived connections: 429/503 past one).
 */
async function waitForEnd(call: ToolCall, job: Job, seconds: number): Promise<void> {
  const stop = AbortSignal.any([call.signal, AbortSignal.timeout(seconds * 1000)]);
  const events = await jobEventsCall(call.ctx, call.creds, job.job_id, { signal: stop });
  let sent = -1;
  const report = async (p: ProgressReport) => {
    if (!call.progress || p.progress <= sent) return;
    sent = p.progress;
    await call.progress(p).catch(() => {});
  };
  await report({ progress: progressValue(job.status, job.progress?.fraction ?? 0), total: STAGE_ORDER.length - 1, message: job.status });
  try {
    for await (const e of events) {
      if (e.type === 'status') await report({ progress: progressValue(e.status, 0), total: STAGE_ORDER.length - 1, message: e.status });
      else if (e.type === 'progress') {
        await report({ progress: progressValue(e.stage, e.fraction), total: STAGE_ORDER.length - 1, message: `${e.stage} ${Math.round(e.fraction * 100)}%` });
      } else return;
    }
  } catch (err) {
    if (!stop.aborted) throw err;
  } finally {
    await events.return(undefined);
  }
}

/** get_job_status: the job now, or after waiting up to wait_seconds for it to end. */
export async function jobStatusTool(call: ToolCall, args: { job_id: string; wait_seconds?: number }): Promise<ToolResult> {
  let job = await getJobCall(call.ctx, call.creds, args.job_id);
  const wait = args.wait_seconds ?? 0;
  if (wait > 0 && !FINAL.has(job.status)) {
    await waitForEnd(call, job, wait);
    job = await getJobCall(call.ctx, call.creds, args.job_id);
  }
  const next = FINAL.has(job.status)
    ? job.status === 'completed'
      ? 'download the outputs by their download_url (valid 1 hour; get_download_links renews them) or read a transcript with get_transcript'
      : undefined
    : 'not finished yet: call get_job_status again with wait_seconds';
  return { value: { ...job, ...(next && { next }) } };
}

/** get_transcript: the transcript inline in the asked format (SRT by default). */
export async function transcriptTool(call: ToolCall, args: { job_id: string; format?: string }): Promise<ToolResult> {
  const r = await downloadCall(call.ctx, call.creds, args.job_id, 'transcript', args.format, { inline: true });
  if (r.kind === 'url') return { value: { job_id: args.job_id, format: args.format ?? 'srt', download_url: r.download_url } };
  return { value: { job_id: args.job_id, format: args.format ?? 'srt', content_type: r.contentType, transcript: r.body }, text: r.body };
}

/** list_jobs: one page of the session's jobs, newest first (the REST list's call). */
export async function listJobsTool(call: ToolCall, args: ListJobsQuery & { session_token?: string }): Promise<ToolResult> {
  const { session_token: _, ...query } = args;
  return { value: await listJobsCall(call.ctx, call.creds, query) };
}

/** get_download_links: the job's outputs with fresh presigned links. */
export async function downloadLinksTool(call: ToolCall, args: { job_id: string }): Promise<ToolResult> {
  const job = await getJobCall(call.ctx, call.creds, args.job_id);
  return {
    value: {
      job_id: job.job_id,
      status: job.status,
      outputs: job.outputs.map((o) => ({
        role: o.role,
        job_id: o.job_id,
        content_type: o.content_type,
        download_url: o.download_url,
        attachment_url: o.attachment_url,
      })),
    },
  };
}

/** create_session: a new anonymous session (free). */
export async function createSessionTool(call: ToolCall): Promise<ToolResult> {
  return { value: { ...(await createSessionCall(call.ctx)) } };
}

/** mpp_smoke_test: pays 0.01 and echoes (-32042 until paid). */
export async function smokeTestTool(call: ToolCall, args: { echo?: string }): Promise<ToolResult> {
  try {
    const served = await smokeTestCall(call.ctx, call.creds, args.echo);
    return { value: served.value, receipt: served.receipt };
  } catch (err) {
    throw await mcpPaymentError(call, err, {});
  }
}
