import { and, eq, inArray } from 'drizzle-orm';
import type { CompleteRequest, FailRequest, Fence, HeartbeatResponse, StageRequest } from '@cutroom/proto';
import type { JobStatus } from '@cutroom/shared/job-types';
import { RETENTION_HOURS } from '@cutroom/shared/limits';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { jobAttempts, jobOutputs, jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { failJob } from '../jobs/fail-job.ts';
import { FAILURE_POLICY, callerMessage } from '../jobs/failure-policy.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { ACTIVE_STATUSES, canTransition } from '../jobs/transitions.ts';
import { TRANSCRIBE_OUTPUTS } from './claim.ts';
import { randomUUID } from 'node:crypto';

const fenceOf = (f: Fence) => eq(jobs.currentAttemptId, f.attempt_id);
const stale = (f: Fence) => new AppError('stale_attempt', `attempt ${f.attempt_id} no longer holds job ${f.job_id}: stop work`);

async function endAttempt(tx: Tx, attemptId: string, now: Date, outcome: string, code?: string, message?: string) {
  await tx.update(jobAttempts).set({ endedAt: now, outcome, errorCode: code ?? null, errorMessage: message ?? null }).where(eq(jobAttempts.id, attemptId));
}

/** Renews the lease of a live attempt; a stale one gets 409 and must stop. */
export async function heartbeat(ctx: Ctx, f: Fence): Promise<HeartbeatResponse> {
  const now = ctx.clock.now();
  const expires = addMs(now, ctx.config.LEASE_MS);
  const [row] = await ctx.db.update(jobs).set({ leaseExpiresAt: expires })
    .where(and(eq(jobs.id, f.job_id), fenceOf(f), inArray(jobs.status, [...ACTIVE_STATUSES])))
    .returning({ id: jobs.id });
  if (!row) throw stale(f);
  return { v: 1, lease_expires_at: expires.toISOString(), cancel: false };
}

/** A pipeline stage that is a job status (extracting_audio → transcribing …). */
export async function reportStage(ctx: Ctx, r: StageRequest): Promise<void> {
  const now = ctx.clock.now();
  const moved = await ctx.db.transaction(async (tx) => {
    const [job] = await tx.select({ status: jobs.status, mediaKind: jobs.mediaKind, contentType: jobs.contentType }).from(jobs).where(and(eq(jobs.id, r.job_id), fenceOf(r))).limit(1);
    if (!job) return null;
    if (job.status === r.stage) return job; // a retried report
    if (r.media?.has_video && job.mediaKind === 'audio') {
      // Priced as audio, but the file is a video: refuse before spending the transcription.
      return failJob(tx, {
        jobId: r.job_id, now, attemptId: r.attempt_id, where: fenceOf(r), code: 'media_kind_mismatch',
        message: `the uploaded file is a video but the job was created as ${job.contentType} (audio price); create a new job with the video's content type`,
      }).then(() => null);
    }
    if (!canTransition(job.status as JobStatus, r.stage)) throw new AppError('conflict', `cannot move from ${job.status} to ${r.stage}`);
    return transitionJob(tx, { jobId: r.job_id, from: job.status as JobStatus, to: r.stage, reason: 'stage', now, attemptId: r.attempt_id, where: fenceOf(r), patch: { progress: { stage: r.stage, fraction: 0, at: now.toISOString() } } });
  });
  if (!moved) throw stale(r);
}

/**
 * Records a finished attempt: checks every output is in storage and the words transcript is
 * valid, upserts one output row per role (a retried attempt overwrites, never adds), completes
 * the job. Idempotent for the attempt that completed it.
 */
export async function completeAttempt(ctx: Ctx, r: CompleteRequest): Promise<void> {
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, r.job_id)).limit(1);
  if (!job || job.currentAttemptId !== r.attempt_id) throw stale(r);
  if (job.status === 'completed') return;
  const srtKey = `jobs/${job.id}/outputs/transcript_srt`;
  const wordsKey = `jobs/${job.id}/outputs/transcript_words`;
  for (const key of [srtKey, wordsKey]) {
    if (!(await ctx.blobs.head(key))) throw new AppError('invalid_request', `output ${key} was not uploaded`);
  }
  const words = TranscriptV2.safeParse(JSON.parse((await ctx.blobs.getBytes(wordsKey)).toString('utf8')));
  if (!words.success) throw new AppError('invalid_request', `transcript_words does not match transcript v2: ${words.error.message}`);
  const now = ctx.clock.now();
  const srtBytes = r.outputs.find((o) => o.name === 'transcript_srt')?.bytes ?? null;
  const done = await ctx.db.transaction(async (tx) => {
    const row = await transitionJob(tx, {
      jobId: job.id, from: ['transcribing', 'analyzing'], to: 'completed', reason: 'completed', now, attemptId: r.attempt_id, where: fenceOf(r),
      patch: {
        completedAt: now,
        expiresAt: addMs(now, RETENTION_HOURS.transcribe * 3600_000),
        durationSeconds: r.media.duration_seconds,
        media: { ...r.media, language: r.language },
        leaseExpiresAt: null,
        progress: null,
      },
    });
    if (!row) return null;
    await tx.insert(jobOutputs)
      .values({ id: randomUUID(), jobId: job.id, role: 'transcript', storageKey: srtKey, contentType: TRANSCRIBE_OUTPUTS.transcript_srt, bytes: srtBytes, meta: { words_key: wordsKey }, createdAt: now })
      .onConflictDoUpdate({ target: [jobOutputs.jobId, jobOutputs.role], set: { storageKey: srtKey, bytes: srtBytes, meta: { words_key: wordsKey }, createdAt: now } });
    await endAttempt(tx, r.attempt_id, now, 'completed');
    return row;
  });
  if (!done) throw stale(r);
  ctx.logger.info({ job_id: job.id, attempt_id: r.attempt_id, agent_id: r.agent_id }, 'job completed');
}

/** A failed attempt: user-blamed failures end the job; system ones requeue until MAX_ATTEMPTS. */
export async function failAttempt(ctx: Ctx, r: FailRequest): Promise<void> {
  const now = ctx.clock.now();
  const policy = FAILURE_POLICY[r.code];
  const outcome = await ctx.db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(and(eq(jobs.id, r.job_id), fenceOf(r))).limit(1);
    if (!job) return null;
    if (job.status === 'failed') return 'failed';
    await endAttempt(tx, r.attempt_id, now, 'failed', r.code, r.message);
    if (policy.retryable && job.attemptCount < ctx.config.MAX_ATTEMPTS) {
      await requeueJob(tx, job.id, job.jobType, job.status, now, `attempt failed: ${r.code}`, r.attempt_id);
      return 'requeued';
    }
    await failJob(tx, { jobId: job.id, now, code: r.code, message: callerMessage(r.code, r.message), attemptId: r.attempt_id, where: fenceOf(r) });
    return 'failed';
  });
  if (!outcome) throw stale(r);
  if (outcome === 'requeued') ctx.notifyOutbox();
  ctx.logger.warn({ job_id: r.job_id, attempt_id: r.attempt_id, agent_id: r.agent_id, code: r.code, outcome }, r.message);
}

/** Puts a job back in the queue with no attempt, plus a fresh wake-up, in the caller's transaction. */
export async function requeueJob(tx: Tx, jobId: string, jobType: string, from: string, now: Date, reason: string, attemptId: string | null) {
  const row = await transitionJob(tx, {
    jobId, from: from as 'extracting_audio', to: 'extracting_audio', reason, now, attemptId,
    patch: { currentAttemptId: null, leaseExpiresAt: null, progress: null },
  });
  if (row) await enqueueWakeup(tx, jobId, jobType, now);
  return row;
}
