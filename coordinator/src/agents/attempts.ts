import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { CompleteRequest, FailRequest, Fence, HeartbeatResponse, StageRequest } from '@cutroom/proto';
import type { FailureDetail } from '@cutroom/shared/failure-details';
import { failureMessage, shouldRetry, type FailureCode } from '@cutroom/shared/failures';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobAttempts, jobOutputs, jobs, type JobPatch, type JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { outputKeyOf } from '../jobs/job-access.ts';
import { urlSourceKeyOf } from '../jobs/url-source.ts';
import { sourceUrlOf } from '../job-types/upload-common.ts';
import { nudgeParent } from '../composites/steps.ts';
import { requeueJob } from '../jobs/requeue-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { canTransition } from '../jobs/transitions.ts';
import { filesOf, rolesOf } from '../job-types/definition.ts';
import { definitionOf } from '../job-types/agent-types.ts';
import { recordCompletionMetrics } from '../metrics/completion.ts';
import { BlobNotFoundError } from '../storage/blob-store.ts';
import { touchAgent } from './claim.ts';
import { callerFailureMessage } from './reported-failure.ts';

const fenceOf = (f: Fence) => eq(jobs.currentAttemptId, f.attempt_id);
const stale = (f: Fence) => new AppError('stale_attempt', `attempt ${f.attempt_id} no longer holds job ${f.job_id}: stop work`);

/**
 * An agent acts only on attempts it claimed: the attempt's agent is fixed when the claim writes
 * its row, and the agent routes have already matched the body's agent_id to the credential. Another
 * agent's attempt is refused (403) before anything is read or written; an attempt of no such job
 * is stale (409).
 */
async function refuseOthersAttempt(ctx: Ctx, f: Fence): Promise<{ startedAt: Date }> {
  const [row] = await ctx.db
    .select({ agentId: jobAttempts.agentId, startedAt: jobAttempts.startedAt })
    .from(jobAttempts)
    .where(and(eq(jobAttempts.id, f.attempt_id), eq(jobAttempts.jobId, f.job_id)))
    .limit(1);
  if (!row) throw stale(f);
  if (row.agentId !== f.agent_id) {
    ctx.logger.warn({ job_id: f.job_id, attempt_id: f.attempt_id, agent_id: f.agent_id, holder: row.agentId }, "an agent called on another agent's attempt");
    throw new AppError('forbidden', `attempt ${f.attempt_id} is not agent ${f.agent_id}'s`);
  }
  return row;
}

/** Renews the lease of a live attempt; a stale one gets 409 and must stop. */
export async function heartbeat(ctx: Ctx, f: Fence): Promise<HeartbeatResponse> {
  const { startedAt } = await refuseOthersAttempt(ctx, f);
  const now = ctx.clock.now();
  const maxMs = ctx.config.ATTEMPT_MAX_MINUTES * 60_000;
  if (now.getTime() - startedAt.getTime() > maxMs) {
    // Renewed faithfully or not, an attempt past the cap ends here (another agent may try again).
    await endWithFailure(ctx, f, 'stage_timeout', `the attempt ran past ATTEMPT_MAX_MINUTES (${ctx.config.ATTEMPT_MAX_MINUTES} min)`);
    throw stale(f);
  }
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
  await refuseOthersAttempt(ctx, r);
  const now = ctx.clock.now();
  let failed: JobRow | null = null;
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
      failed = await failJob(tx, {
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
  // A child of an agent product that failed here: its product's next step runs after this commit.
  nudgeParent(ctx, failed);
  if (!moved) throw stale(r);
}

type ResultCheck = { ok: true; patch: JobPatch; sizes: Map<string, number> } | { ok: false; reason: string };

/**
 * Everything a completion claims, checked before anything is recorded: the job type, that the job
 * reached its last stage, every file the type writes in the attempt's own folder, each JSON file
 * against its schema, and the type's completion hook. A bad result is the attempt's failure
 * (`output_invalid`), never a call error. A storage error other than "absent" is ours and is
 * thrown: the agent retries the call.
 */
async function checkResult(ctx: Ctx, job: JobRow, r: CompleteRequest): Promise<ResultCheck> {
  const bad = (reason: string): ResultCheck => ({ ok: false, reason });
  if (r.job_type !== job.jobType) return bad(`job ${job.id} is a ${job.jobType} job, not ${r.job_type}`);
  const def = definitionOf(job.jobType);
  const last = def.stages[def.stages.length - 1]!;
  if (job.status !== last) return bad(`completed in status ${job.status}; a ${job.jobType} job completes from ${last}`);
  const sizes = new Map<string, number>();
  for (const [name, file] of filesOf(def, job)) {
    const key = outputKeyOf(job.id, r.attempt_id, name);
    const head = await ctx.blobs.head(key);
    if (!head) return bad(`output ${name} was not uploaded to ${key}`);
    sizes.set(name, head.size);
    if (!file.schema) continue;
    let text: string;
    try {
      text = (await ctx.blobs.getBytes(key)).toString('utf8');
    } catch (err) {
      if (err instanceof BlobNotFoundError) return bad(`output ${name} disappeared from ${key}`);
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return bad(`${name} is not JSON`);
    }
    const parsed = file.schema.safeParse(body);
    if (!parsed.success) return bad(`${name} does not match its schema: ${parsed.error.message.slice(0, 500)}`);
  }
  try {
    return { ok: true, patch: def.completion(job, r), sizes };
  } catch (err) {
    return bad(`the ${job.jobType} result could not be recorded: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Records a finished attempt: checks the result (checkResult), upserts one output row per role
 * naming the attempt's own objects (a retried job overwrites its rows, never adds), completes the
 * job with its type's retention. Idempotent for the attempt that completed it.
 *
 * A result that fails the check ends the attempt as `output_invalid` through the failure policy
 * (requeued, or failed and refunded after MAX_ATTEMPTS) and the call answers 409 stale: the
 * attempt is over, so the agent stops instead of retrying a result that cannot succeed.
 */
/**
 * For a job whose media came from its source_url and has no source yet: the file this attempt
 * stored (its key and size), or null when it stored none. Undefined for every other job.
 */
async function fetchedSource(ctx: Ctx, job: JobRow, attemptId: string): Promise<{ key: string; size: number } | null | undefined> {
  if (sourceUrlOf(job) === null || job.sourceKey) return undefined;
  const key = urlSourceKeyOf(job.id, attemptId);
  const head = await ctx.blobs.head(key);
  return head ? { key, size: head.size } : null;
}

export async function completeAttempt(ctx: Ctx, r: CompleteRequest): Promise<void> {
  await refuseOthersAttempt(ctx, r);
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, r.job_id)).limit(1);
  if (!job || job.currentAttemptId !== r.attempt_id) throw stale(r);
  if (job.status === 'completed') return;
  const fetched = await fetchedSource(ctx, job, r.attempt_id);
  const check = fetched === null ? { ok: false as const, reason: 'the file fetched from the source_url was not stored' } : await checkResult(ctx, job, r);
  if (!check.ok) {
    const outcome = await endWithFailure(ctx, r, 'output_invalid', check.reason);
    if (!outcome) throw stale(r);
    throw new AppError('stale_attempt', `the result of attempt ${r.attempt_id} was refused (output_invalid: ${check.reason}); the attempt is over: stop work`);
  }
  const def = definitionOf(job.jobType);
  const now = ctx.clock.now();
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
        ...check.patch,
        // Media by URL: what this attempt fetched and stored is the job's source from now on (cuts read it).
        ...(fetched && { sourceKey: fetched.key, fileSize: fetched.size }),
        completedAt: now,
        expiresAt: addMs(now, def.facts.retentionHours * 3600_000),
        leaseExpiresAt: null,
        progress: null,
      },
    });
    if (!row) return null;
    const keyOf = (file: string) => outputKeyOf(job.id, r.attempt_id, file);
    for (const role of rolesOf(def, job)) {
      const meta = Object.fromEntries(Object.entries(role.meta ?? {}).map(([k, file]) => [k, keyOf(file)]));
      const values = {
        storageKey: keyOf(role.file),
        contentType: def.files[role.file]!.contentType,
        bytes: check.sizes.get(role.file) ?? null,
        meta,
        createdAt: now,
      };
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
  await recordCompletionMetrics(ctx, job, r);
  // A child of an agent product: its product's next step (cut the clips, settle the hold) runs after this commit.
  nudgeParent(ctx, done);
}

/**
 * Ends the fenced attempt with a failure and lets the failure table decide: a retryable failure
 * requeues the job (to another agent where one can take it) until MAX_ATTEMPTS; the rest, and a
 * retryable one out of attempts, fail it, refunded. Null when the attempt no longer holds the job.
 * `message` goes to the attempt row (operators) and the log; the caller reads callerFailureMessage.
 */
async function endWithFailure(ctx: Ctx, f: Fence, code: FailureCode, message: string, detail?: FailureDetail): Promise<'requeued' | 'failed' | null> {
  const now = ctx.clock.now();
  let parent: string | null = null;
  const outcome = await ctx.db.transaction(async (tx) => {
    const [job] = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, f.job_id), fenceOf(f)))
      .limit(1);
    if (!job) return null;
    if (job.status === 'failed') return 'failed';
    const retry = shouldRetry(code, job.attemptCount, ctx.config.MAX_ATTEMPTS);
    const moved = retry
      ? await requeueJob(tx, job, { now, reason: `attempt failed: ${code}`, attemptId: f.attempt_id, where: fenceOf(f) })
      : await failJob(tx, { jobId: job.id, now, code, message: callerFailureMessage(job, code, message, detail), attemptId: f.attempt_id, where: fenceOf(f) });
    if (!moved) return null;
    await endAttempt(tx, f.attempt_id, now, 'failed', { code, message });
    parent = job.parentJobId;
    return retry ? ('requeued' as const) : ('failed' as const);
  });
  if (outcome === 'requeued') ctx.notifyOutbox();
  if (outcome === 'failed') nudgeParent(ctx, { parentJobId: parent });
  if (outcome) ctx.logger.warn({ job_id: f.job_id, attempt_id: f.attempt_id, agent_id: f.agent_id, code, detail, outcome }, message);
  return outcome;
}

/**
 * A failed attempt, as its agent reports it (an AgentFailureCode); the failure table decides what
 * follows. The caller reads the rendering of `detail`, never the agent's `message`.
 */
export async function failAttempt(ctx: Ctx, r: FailRequest): Promise<void> {
  await refuseOthersAttempt(ctx, r);
  if (!(await endWithFailure(ctx, r, r.code, r.message, r.detail))) throw stale(r);
}
