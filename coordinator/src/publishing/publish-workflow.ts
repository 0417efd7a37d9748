import { and, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { failureMessage, type FailureCode } from '@cutroom/shared/failures';
import { JOB_TYPES } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs, publishWorkflows, type PublishWorkflowRow } from '../db/schema.ts';
import { failJob } from '../jobs/fail-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { isAppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { accessTokenFor, activeConnectionOf, ReconnectRequiredError, requirePublishing } from './connections.ts';
import { tokenCipherOf } from './token-crypto.ts';
import { backoffMs, nextQuotaWindow } from './publish-timing.ts';
import { CAPTION_TRACK_NAME, captionsOf, metadataOf, publishInputs, readRange, sourceOf } from './publish-steps.ts';
import { HostError, videoHostApi, type UploadState, type VideoHostApi } from './video-host-api.ts';

/** Another worker holds the workflow now (this one's lease ran out): stop without writing. */
class Fenced extends Error {}

export interface WorkflowSettings {
  /** Bytes per resumable PUT (a multiple of 256 KiB, as the host asks). */
  chunkBytes: number;
  leaseMs: number;
  maxAttempts: number;
  /** Quota exhausted: wait for the host's next quota window when it opens within this, else fail. */
  quotaMaxWaitMs: number;
}

export type WorkflowOutcome = 'completed' | 'failed' | 'waiting' | 'fenced';

/**
 * Runs one leased publish workflow (ADR 0006) as far as it goes: start the upload session (its URI
 * persisted before any byte), send the source from the offset the host reports, add the caption
 * track, complete the job. Every result the host confirmed is written before the next step, fenced
 * by the lease, so a run killed anywhere resumes from the last confirmed step and nothing happens
 * twice on the host: the upload resumes from the host's own offset, a finished upload is found by
 * its status query, an existing caption track by its name.
 */
export async function runWorkflow(ctx: Ctx, wf: PublishWorkflowRow, owner: string, s: WorkflowSettings): Promise<WorkflowOutcome> {
  const now = () => ctx.clock.now();
  /** Writes what a step confirmed and renews the lease; refused (Fenced) when another worker took over. */
  const save = async (patch: Partial<PublishWorkflowRow>): Promise<void> => {
    const [row] = await ctx.db
      .update(publishWorkflows)
      .set({ ...patch, leaseUntil: addMs(now(), s.leaseMs), updatedAt: now() })
      .where(and(eq(publishWorkflows.jobId, wf.jobId), eq(publishWorkflows.leaseOwner, owner)))
      .returning();
    if (!row) throw new Fenced();
    wf = row;
  };
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, wf.jobId)).limit(1);
  if (job?.status !== 'publishing') {
    // The job ended another way (failed, deleted): nothing to publish.
    await save({ step: 'done', leaseOwner: null, leaseUntil: null }).catch(() => {});
    return 'fenced';
  }
  try {
    const host = requirePublishing(ctx);
    const cipher = tokenCipherOf(ctx.config);
    const { parent, params } = await publishInputs(ctx, job);
    // Connecting the account again (same session) replaces the connection: publish through the new one.
    const current = job.sessionId ? await activeConnectionOf(ctx, job.sessionId) : null;
    if (current && current.id !== wf.connectionId) await save({ connectionId: current.id });
    let refreshed = false;
    let api: VideoHostApi = videoHostApi({ apiBase: host.apiBase, accessToken: await accessTokenFor(ctx, wf.connectionId) });
    for (;;) {
      try {
        if (wf.step === 'start' || (wf.step === 'upload' && !wf.uploadUri)) {
          const source = await sourceOf(ctx, parent);
          if (!source)
            return await fail(ctx, wf, owner, 'publish_rejected', `the source of job ${parent.id} is gone (it expired or was deleted): nothing to publish`);
          const meta = await metadataOf(ctx, parent, params);
          const uri = await api.startUpload(meta, { bytes: source.bytes, contentType: source.contentType });
          // The session URI lets whoever holds it upload into the account: sealed at rest like the tokens.
          await save({ step: 'upload', uploadUri: cipher.seal(uri), bytesTotal: source.bytes, bytesConfirmed: 0 });
        } else if (wf.step === 'upload') {
          const total = wf.bytesTotal!;
          const uri = cipher.open(wf.uploadUri!);
          // The host is the truth for the offset: ask before sending, whatever the row says.
          let state: UploadState = await api.uploadStatus(uri, total);
          while (!state.done) {
            if (state.offset !== wf.bytesConfirmed) {
              await save({ bytesConfirmed: state.offset });
              await showProgress(ctx, wf.jobId, state.offset / total);
            }
            const end = Math.min(state.offset + s.chunkBytes, total) - 1;
            const chunk = await readRange(ctx, sourceKeyOfParent(parent.id), state.offset, end);
            state = await api.putChunk(uri, chunk, state.offset, total);
          }
          await save({ step: 'captions', videoId: state.video.id, bytesConfirmed: total, attempts: 0 });
        } else if (wf.step === 'captions') {
          const captions = await captionsOf(ctx, parent);
          let captionId: string | null = null;
          if (captions) {
            const existing = (await api.listCaptions(wf.videoId!)).find((c) => c.name === CAPTION_TRACK_NAME);
            captionId = existing?.id ?? (await api.insertCaption(wf.videoId!, captions.srt, { language: captions.language, name: CAPTION_TRACK_NAME }));
          }
          await save({ step: 'complete', captionId });
        } else if (wf.step === 'complete') {
          return await complete(ctx, wf, owner);
        } else {
          return 'fenced';
        }
      } catch (err) {
        if (err instanceof HostError && err.kind === 'auth' && !refreshed) {
          // An access token the host no longer takes: refresh once and go on.
          refreshed = true;
          api = videoHostApi({ apiBase: host.apiBase, accessToken: await accessTokenFor(ctx, wf.connectionId, { forceRefresh: true }) });
          continue;
        }
        if (err instanceof HostError && err.kind === 'session_gone' && wf.step === 'upload') {
          // The session expired before a video was made (a finished one answers its status): open a new one.
          await save({ step: 'start', uploadUri: null, bytesConfirmed: 0 });
          continue;
        }
        throw err;
      }
    }
  } catch (err) {
    if (err instanceof Fenced) return 'fenced';
    return handleFailure(ctx, wf, owner, s, err);
  }
}

const sourceKeyOfParent = (parentId: string) => `jobs/${parentId}/source`;

/** The upload's share confirmed by the host, as the job's progress (polling, the event stream, MCP notifications read it). */
async function showProgress(ctx: Ctx, jobId: string, fraction: number): Promise<void> {
  await ctx.db
    .update(jobs)
    .set({ progress: { stage: 'publishing', fraction: Math.min(1, fraction), at: ctx.clock.now().toISOString() } })
    .where(and(eq(jobs.id, jobId), eq(jobs.status, 'publishing')));
}

/** Decides what a failed step means: wait for quota, back off, or end the job (refunded). */
async function handleFailure(ctx: Ctx, wf: PublishWorkflowRow, owner: string, s: WorkflowSettings, err: unknown): Promise<WorkflowOutcome> {
  const now = ctx.clock.now();
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ReconnectRequiredError) return fail(ctx, wf, owner, 'publish_auth_revoked', err.message);
  // Publishing switched off meanwhile (settings removed): nothing can run it.
  if (isAppError(err) && err.code !== 'unavailable') return fail(ctx, wf, owner, 'publish_rejected', err.message);
  if (err instanceof HostError && err.kind === 'auth') {
    return fail(
      ctx,
      wf,
      owner,
      'publish_auth_revoked',
      `the video host refused the account's authorization (${message}): connect the account again and publish again`,
    );
  }
  if (err instanceof HostError && err.kind === 'permanent') return fail(ctx, wf, owner, 'publish_rejected', message);
  if (err instanceof HostError && err.kind === 'quota') {
    const window = nextQuotaWindow(now);
    if (window.getTime() - now.getTime() > s.quotaMaxWaitMs) return fail(ctx, wf, owner, 'publish_quota_exhausted', message);
    return postpone(ctx, wf, owner, window, `waiting for the host's quota window: ${message}`, wf.attempts);
  }
  // 5xx, rate limits, network, storage: back off with jitter, up to maxAttempts.
  const attempts = wf.attempts + 1;
  if (attempts >= s.maxAttempts) return fail(ctx, wf, owner, 'publish_host_unavailable', `${attempts} attempts: ${message}`);
  ctx.logger.warn({ job_id: wf.jobId, step: wf.step, attempts, err: message }, 'publish step failed; backing off');
  return postpone(ctx, wf, owner, addMs(now, backoffMs(attempts)), message, attempts);
}

async function postpone(ctx: Ctx, wf: PublishWorkflowRow, owner: string, at: Date, why: string, attempts: number): Promise<WorkflowOutcome> {
  const [row] = await ctx.db
    .update(publishWorkflows)
    .set({ nextRunAt: at, attempts, lastError: why.slice(0, 1000), leaseOwner: null, leaseUntil: null, updatedAt: ctx.clock.now() })
    .where(and(eq(publishWorkflows.jobId, wf.jobId), eq(publishWorkflows.leaseOwner, owner)))
    .returning({ jobId: publishWorkflows.jobId });
  return row ? 'waiting' : 'fenced';
}

/**
 * The compensation of a publish that fails after the host made the video: the video is deleted, so
 * a refunded job leaves nothing on the channel. Answers what the job's message adds.
 */
async function removeVideo(ctx: Ctx, wf: PublishWorkflowRow): Promise<string> {
  const videoId = wf.videoId!;
  try {
    const host = requirePublishing(ctx);
    const api = videoHostApi({ apiBase: host.apiBase, accessToken: await accessTokenFor(ctx, wf.connectionId) });
    await api.deleteVideo(videoId);
    ctx.logger.info({ job_id: wf.jobId, video_id: videoId }, 'failed publish: the uploaded video was deleted');
    return `; the uploaded video ${videoId} was deleted from the host`;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    ctx.logger.error({ job_id: wf.jobId, video_id: videoId, err: why }, 'failed publish: the uploaded video could not be deleted');
    return `; the uploaded video ${videoId} could not be deleted from the host (${why}): delete it there`;
  }
}

async function holdsLease(ctx: Ctx, wf: PublishWorkflowRow, owner: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ jobId: publishWorkflows.jobId })
    .from(publishWorkflows)
    .where(and(eq(publishWorkflows.jobId, wf.jobId), eq(publishWorkflows.leaseOwner, owner)))
    .limit(1);
  return row !== undefined;
}

/** Ends the job failed (refunded, jobs/fail-job.ts) and the workflow with it, fenced by the lease; a video already made is deleted first. */
async function fail(ctx: Ctx, wf: PublishWorkflowRow, owner: string, code: FailureCode, why: string): Promise<WorkflowOutcome> {
  // Delete only while this run still holds the workflow (the fence the failure itself is written under):
  // a worker that took it over may be finishing that video.
  if (wf.videoId && !(await holdsLease(ctx, wf, owner))) return 'fenced';
  const detail = wf.videoId ? `${why}${await removeVideo(ctx, wf)}` : why;
  const now = ctx.clock.now();
  ctx.logger.warn({ job_id: wf.jobId, step: wf.step, code, detail }, 'publish failed');
  return ctx.db.transaction(async (tx) => {
    const [mine] = await tx
      .update(publishWorkflows)
      .set({ step: 'failed', lastError: detail.slice(0, 1000), leaseOwner: null, leaseUntil: null, updatedAt: now })
      .where(and(eq(publishWorkflows.jobId, wf.jobId), eq(publishWorkflows.leaseOwner, owner)))
      .returning({ jobId: publishWorkflows.jobId });
    if (!mine) return 'fenced' as const;
    await failJob(tx, { jobId: wf.jobId, now, code, message: failureMessage(code, detail), from: ['publishing'] });
    return 'failed' as const;
  });
}

/** The job completes with its published video as output (`video`, external_url), in one transaction with the workflow's end. */
async function complete(ctx: Ctx, wf: PublishWorkflowRow, owner: string): Promise<WorkflowOutcome> {
  const now = ctx.clock.now();
  const url = `${requirePublishing(ctx).watchUrl}${wf.videoId}`;
  return ctx.db.transaction(async (tx) => {
    const [mine] = await tx
      .update(publishWorkflows)
      .set({ step: 'done', leaseOwner: null, leaseUntil: null, updatedAt: now })
      .where(and(eq(publishWorkflows.jobId, wf.jobId), eq(publishWorkflows.leaseOwner, owner)))
      .returning({ jobId: publishWorkflows.jobId });
    if (!mine) return 'fenced' as const;
    await tx
      .insert(jobOutputs)
      .values({
        id: randomUUID(),
        jobId: wf.jobId,
        role: 'video',
        storageKey: null,
        externalUrl: url,
        contentType: null,
        meta: { video_id: wf.videoId!, ...(wf.captionId && { caption_id: wf.captionId }) },
        createdAt: now,
      })
      .onConflictDoNothing();
    await transitionJob(tx, {
      jobId: wf.jobId,
      from: 'publishing',
      to: 'completed',
      reason: `published as ${wf.videoId}`,
      now,
      patch: { completedAt: now, progress: null, expiresAt: addMs(now, JOB_TYPES.publish_video.retentionHours * 3600_000) },
    });
    return 'completed' as const;
  });
}
