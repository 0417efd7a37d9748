import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Assignment, ClaimRequest, ClaimResponse } from '@cutroom/proto';
import { ACTIVE_STATUSES } from '@cutroom/shared/job-types';
import type { CoordinatorConfig } from '../config.ts';
import type { Ctx } from '../context.ts';
import { failureMessage } from '@cutroom/shared/failures';
import { agents, jobAttempts, jobEvents, jobOutputs, jobs, type JobRow } from '../db/schema.ts';
import { endAttempt } from '../jobs/end-attempt.ts';
import { failJob } from '../jobs/fail-job.ts';
import { nudgeParent } from '../composites/steps.ts';
import { addMs } from '../lib/clock.ts';
import { outputKeyOf } from '../jobs/job-access.ts';
import { urlSourceKeyOf } from '../jobs/url-source.ts';
import { sourceUrlOf } from '../job-types/upload-common.ts';
import { type AssignmentInputs, filesOf } from '../job-types/definition.ts';
import { definitionOf } from '../job-types/agent-types.ts';
import { AGENT_LIVE_MS } from '../operators/agent-state.ts';
import { decideClaim, RETRY_ELSEWHERE_MS } from '../claims/claim-rules.ts';
import { loadEligibility } from '../claims/eligibility.ts';

export { AGENT_LIVE_MS, RETRY_ELSEWHERE_MS };

/**
 * Claims a queued job for an agent. Queued means: in an active status (its type's first stage
 * after a requeue) with no current attempt, whatever the job type. The claim policy
 * (claims/claim-rules.ts, on a snapshot loaded in two queries) decides whether this agent may take
 * it; one conditional UPDATE then decides between racing agents; the winner gets a fresh
 * attempt_id (the fence for every later call) and presigned URLs for its source and outputs.
 */
export async function claimJob(ctx: Ctx, req: ClaimRequest): Promise<ClaimResponse> {
  const now = ctx.clock.now();
  await touchAgent(ctx, req.agent_id, now);
  const snapshot = await loadEligibility(ctx, req.agent_id, req.job_id);
  const decision = decideClaim(snapshot, {
    routing: ctx.config.ROUTING_TAGS,
    blocklistFailures: ctx.config.BLOCKLIST_FAILURES,
    RETRY_BACKOFF_MS: ctx.config.RETRY_BACKOFF_MS,
    RETRY_BACKOFF_MAX_MS: ctx.config.RETRY_BACKOFF_MAX_MS,
    now,
  });
  if (!decision.claim) {
    const { claim: _, ...refusal } = decision;
    return { v: 1, claimed: false, ...refusal };
  }
  if (decision.blockedButAlone)
    ctx.logger.warn({ agent_id: req.agent_id, job_type: snapshot.job?.type }, 'a blocked agent takes the job: no unblocked agent can');
  const attemptId = randomUUID();
  const lease = ctx.config.LEASE_MS;
  const job = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(jobs)
      .set({ currentAttemptId: attemptId, leaseExpiresAt: addMs(now, lease), attemptCount: sql`${jobs.attemptCount} + 1`, updatedAt: now, progress: null })
      .where(
        and(eq(jobs.id, req.job_id), inArray(jobs.status, [...ACTIVE_STATUSES]), isNull(jobs.currentAttemptId), lt(jobs.attemptCount, ctx.config.MAX_ATTEMPTS)),
      )
      .returning();
    if (!row) return null;
    await tx.insert(jobAttempts).values({ id: attemptId, jobId: row.id, agentId: req.agent_id, startedAt: now });
    await tx
      .insert(jobEvents)
      .values({ jobId: row.id, fromStatus: row.status, toStatus: row.status, reason: `claimed by ${req.agent_id}`, attemptId, createdAt: now });
    return row;
  });
  if (!job) return { v: 1, claimed: false, reason: 'job is not waiting for an agent' };

  const inputs = await inputsOf(ctx, job, attemptId, assignmentUrlTtlSeconds(ctx.config));
  if (!inputs) {
    // The parent lost its source before any agent read it (a derivative paid through checkout
    // after the parent expired): nothing can ever be cut; fail it, refunded, instead of a loop.
    const message = failureMessage(
      'parent_source_gone',
      `the source of parent job ${job.sourceJobId} was deleted before this job could run; the job was refunded`,
    );
    const failed = await ctx.db.transaction(async (tx) => {
      const row = await failJob(tx, { jobId: job.id, now, code: 'parent_source_gone', message, attemptId, where: eq(jobs.currentAttemptId, attemptId) });
      if (row) await endAttempt(tx, attemptId, now, 'failed', { code: 'parent_source_gone', message });
      return row;
    });
    nudgeParent(ctx, failed);
    ctx.logger.warn({ job_id: job.id, attempt_id: attemptId, agent_id: req.agent_id, parent: job.sourceJobId }, 'derivative failed: its parent has no source');
    return { v: 1, claimed: false, reason: 'the job could not start: its parent has no source' };
  }
  const assignment = await buildAssignment(ctx, job, attemptId, inputs);
  ctx.logger.info({ job_id: job.id, attempt_id: attemptId, agent_id: req.agent_id, job_type: job.jobType }, 'job claimed');
  return { v: 1, claimed: true, assignment };
}

/** Lifetime of an assignment's URLs: they must outlive the longest run; the lease, not the URL, bounds a stuck attempt. */
export const assignmentUrlTtlSeconds = (config: Pick<CoordinatorConfig, 'PRESIGN_TTL_SECONDS'>): number => Math.max(config.PRESIGN_TTL_SECONDS, 6 * 3600);

async function buildAssignment(ctx: Ctx, job: JobRow, attemptId: string, inputs: AssignmentInputs): Promise<Assignment> {
  const def = definitionOf(job.jobType);
  const ttl = assignmentUrlTtlSeconds(ctx.config);
  const outputs: Assignment['outputs'] = {};
  for (const [name, file] of filesOf(def, job)) {
    // Per attempt: a stale holder's late upload can only land in its own folder.
    const key = outputKeyOf(job.id, attemptId, name);
    outputs[name] = { key, content_type: file.contentType, put_url: await ctx.blobs.presignPut(key, { expiresInSeconds: ttl, contentType: file.contentType }) };
  }
  return def.buildAssignment(
    { v: 1, job_id: job.id, attempt_id: attemptId, kind: def.workKind, lease_ms: ctx.config.LEASE_MS, outputs },
    job,
    inputs,
    ctx.config,
  );
}

/**
 * What a job works from: its own upload, or for derivatives its parent's source (and the parent's
 * transcript v2, which cuts re-time). Null when a derivative's parent no longer holds its source.
 */
async function inputsOf(ctx: Ctx, job: JobRow, attemptId: string, ttl: number): Promise<AssignmentInputs | null> {
  const presign = (key: string) => ctx.blobs.presignGet(key, { expiresInSeconds: ttl });
  const sourceUrl = sourceUrlOf(job);
  if (sourceUrl !== null && !job.sourceKey) {
    // Media by URL: the agent fetches it and stores it under this attempt (what a completed attempt stored becomes the job's source).
    const key = urlSourceKeyOf(job.id, attemptId);
    return {
      source: {
        get_url: await presign(key),
        content_type: job.contentType,
        size: null,
        fetch: {
          url: sourceUrl,
          max_bytes: ctx.config.UPLOAD_MAX_BYTES,
          timeout_ms: ctx.config.SOURCE_URL_FETCH_TIMEOUT_MS,
          allow_http: ctx.config.SOURCE_URL_ALLOW_HTTP,
          put: { key, content_type: job.contentType, put_url: await ctx.blobs.presignPut(key, { expiresInSeconds: ttl, contentType: job.contentType }) },
        },
      },
      parentWordsUrl: null,
    };
  }
  if (!job.sourceJobId) {
    if (!job.sourceKey) throw new Error(`queued job ${job.id} has no source`);
    return { source: { get_url: await presign(job.sourceKey), content_type: job.contentType, size: job.fileSize }, parentWordsUrl: null };
  }
  const [parent] = await ctx.db.select().from(jobs).where(eq(jobs.id, job.sourceJobId)).limit(1);
  if (!parent?.sourceKey || parent.sourceDeletedAt || parent.status === 'deleted') return null;
  const [transcript] = await ctx.db
    .select({ meta: jobOutputs.meta })
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, parent.id), eq(jobOutputs.role, 'transcript')))
    .limit(1);
  const wordsKey = transcript?.meta['words_key'];
  return {
    source: { get_url: await presign(parent.sourceKey), content_type: parent.contentType, size: parent.fileSize },
    parentWordsUrl: wordsKey ? await presign(wordsKey) : null,
  };
}

/** Agents announce themselves on every register, claim and heartbeat; liveness reads this. */
export async function touchAgent(ctx: Ctx, agentId: string, now: Date): Promise<void> {
  await ctx.db.update(agents).set({ lastSeenAt: now }).where(eq(agents.id, agentId));
}
