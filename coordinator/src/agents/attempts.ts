import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { CompleteRequest, FailRequest, Fence, HeartbeatResponse, StageRequest } from '@cutroom/proto';
import { failureMessage, shouldRetry } from '@cutroom/shared/failures';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs, type JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { outputKeyOf } from '../jobs/job-access.ts';
import { requeueJob } from '../jobs/requeue-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { canTransition } from '../jobs/transitions.ts';
import { definitionOf } from '../job-types/registry.ts';
import { touchAgent } from './claim.ts';

const fenceOf = (f: Fence) => eq(jobs.currentAttemptId, f.attempt_id);
const stale = (f: Fence) => new AppError('stale_attempt', `attempt ${f.attempt_id} no longer holds job ${f.job_id}: stop work`);

/** Renews the lease of a live attempt; a stale one gets 409 and must stop. */
export async function heartbeat(ctx: Ctx, f: Fence): Promise<HeartbeatResponse> {
  const now = ctx.clock.now();
  const expires = addMs(now, ctx.config.LEASE_MS);
  const [row] = await ctx.db
    .update(jobs)
    .set({ leaseExpiresAt: expires })
    .where(and(eq(jobs.id, f.job_id), fenceOf(f), inArray(jobs.status, [...ACTIVE_STATUSES])))
    .returning({ id: jobs.id });
  if (!row) throw stale(f);
  await touchAgent(ctx, f.agent_id, now);
  return { v: 1, lease_expires_at: expires.toISOString(), cancel: false };
}

/**
 * A pipeline stage that is a job status (extracting_audio → transcribing …). The probe that
 * comes with it is checked by the job type against what was paid for: a mismatch fails the job
 * (refunded) before the expensive stage runs.
 */
export async function reportStage(ctx: Ctx, r: StageRequest): Promise<void> {
  const now = ctx.clock.now();
  const moved = await ctx.db.transaction(async (tx) => {
    const [job] = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, r.job_id), fenceOf(r)))
      .limit(1);
    if (!job) return null;
    if (job.status === r.stage) return job; // a retried report
    const refused = r.media ? definitionOf(job.jobType).checkMedia(job, r.media) : null;
    if (refused) {
      await failJob(tx, {
        jobId: r.job_id,
        now,
        attemptId: r.attempt_id,
        where: fenceOf(r),
        code: refused.code,
        message: failureMessage(refused.code, refused.message),
      });
      return null;
    }
    if (!canTransition(job.status, r.stage)) throw new AppError('conflict', `cannot move from ${job.status} to ${r.stage}`);
    return transitionJob(tx, {
      jobId: r.job_id,
      from: job.status,
      to: r.stage,
      reason: 'stage',
      now,
      attemptId: r.attempt_id,
      where: fenceOf(r),
      patch: { progress: { stage: r.stage, fraction: 0, at: now.toISOString() } },
    });
  });
  if (!moved) throw stale(r);
}

/** Every file the job type writes is in storage, and each JSON file matches its schema. */
async function verifyOutputs(ctx: Ctx, job: JobRow): Promise<void> {
  for (const [name, file] of Object.entries(definitionOf(job.jobType).files)) {
    const key = outputKeyOf(job.id, name);
    if (!(await ctx.blobs.head(key))) throw new AppError('invalid_request', `output ${key} was not uploaded`);
    if (!file.schema) continue;
    let body: unknown;
    try {
      body = JSON.parse((await ctx.blobs.getBytes(key)).toString('utf8'));
    } catch {
      throw new AppError('invalid_request', `${name} is not JSON`);
    }
    const parsed = file.schema.safeParse(body);
    if (!parsed.success) throw new AppError('invalid_request', `${name} does not match its schema: ${parsed.error.message}`);
  }
}

/**
 * Records a finished attempt: checks every output is in storage and valid, upserts one output
 * row per role (a retried attempt overwrites, never adds), completes the job with its type's
 * retention. Idempotent for the attempt that completed it.
 */
export async function completeAttempt(ctx: Ctx, r: CompleteRequest): Promise<void> {
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, r.job_id)).limit(1);
  if (!job || job.currentAttemptId !== r.attempt_id) throw stale(r);
  if (job.status === 'completed') return;
  if (r.job_type !== job.jobType) throw new AppError('invalid_request', `job ${job.id} is a ${job.jobType} job, not ${r.job_type}`);
  const def = definitionOf(job.jobType);
  await verifyOutputs(ctx, job);
  const now = ctx.clock.now();
  const bytes = new Map(r.outputs.map((o) => [o.name, o.bytes]));
  const done = await ctx.db.transaction(async (tx) => {
    const row = await transitionJob(tx, {
      jobId: job.id,
      from: def.stages[def.stages.length - 1]!,
      to: 'completed',
      reason: 'completed',
      now,
      attemptId: r.attempt_id,
      where: fenceOf(r),
      patch: {
        ...def.completion(job, r),
        completedAt: now,
        expiresAt: addMs(now, def.facts.retentionHours * 3600_000),
        leaseExpiresAt: null,
        progress: null,
      },
    });
    if (!row) return null;
    for (const role of def.roles) {
      const storageKey = outputKeyOf(job.id, role.file);
      const meta = Object.fromEntries(Object.entries(role.meta ?? {}).map(([k, file]) => [k, outputKeyOf(job.id, file)]));
      const values = { storageKey, contentType: def.files[role.file]!.contentType, bytes: bytes.get(role.file) ?? null, meta, createdAt: now };
      await tx
        .insert(jobOutputs)
        .values({ id: randomUUID(), jobId: job.id, role: role.role, ...values })
        .onConflictDoUpdate({ target: [jobOutputs.jobId, jobOutputs.role], set: values });
    }
    await endAttempt(tx, r.attempt_id, now, 'completed');
    return row;
  });
  if (!done) throw stale(r);
  ctx.logger.info({ job_id: job.id, attempt_id: r.attempt_id, agent_id: r.agent_id }, 'job completed');
}

/**
 * A failed attempt. The failure table decides: retryable failures requeue the job (to another
 * agent where one can take it) until MAX_ATTEMPTS; the rest end it, refunded.
 */
export async function failAttempt(ctx: Ctx, r: FailRequest): Promise<void> {
  const now = ctx.clock.now();
  const outcome = await ctx.db.transaction(async (tx) => {
    const [job] = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, r.job_id), fenceOf(r)))
      .limit(1);
    if (!job) return null;
    if (job.status === 'failed') return 'failed';
    await endAttempt(tx, r.attempt_id, now, 'failed', { code: r.code, message: r.message });
    if (shouldRetry(r.code, job.attemptCount, ctx.config.MAX_ATTEMPTS)) {
      await requeueJob(tx, job, { now, reason: `attempt failed: ${r.code}`, attemptId: r.attempt_id, where: fenceOf(r) });
      return 'requeued';
    }
    await failJob(tx, { jobId: job.id, now, code: r.code, message: failureMessage(r.code, r.message), attemptId: r.attempt_id, where: fenceOf(r) });
    return 'failed';
  });
  if (!outcome) throw stale(r);
  if (outcome === 'requeued') ctx.notifyOutbox();
  ctx.logger.warn({ job_id: r.job_id, attempt_id: r.attempt_id, agent_id: r.agent_id, code: r.code, outcome }, r.message);
}
