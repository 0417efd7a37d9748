import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Assignment, ClaimRequest, ClaimResponse } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { workKindOf } from '../dispatch/enqueue.ts';
import { jobAttempts, jobEvents, jobs } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { outputKeyOf } from '../jobs/job-access.ts';

/** Names and types of what a transcribe attempt writes (proto/PROTOCOL.md). */
export const TRANSCRIBE_OUTPUTS = {
  transcript_srt: 'application/x-subrip',
  transcript_words: 'application/json',
} as const;

/**
 * Claims a queued job for an agent. One conditional UPDATE decides between racing agents:
 * only a job in `extracting_audio` with no current attempt can be taken. The winner gets a
 * fresh attempt_id (the fence for every later call) and presigned URLs for its inputs/outputs.
 */
export async function claimJob(ctx: Ctx, req: ClaimRequest): Promise<ClaimResponse> {
  const now = ctx.clock.now();
  const attemptId = randomUUID();
  const lease = ctx.config.LEASE_MS;
  const job = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.update(jobs)
      .set({ currentAttemptId: attemptId, leaseExpiresAt: addMs(now, lease), attemptCount: sql`${jobs.attemptCount} + 1`, updatedAt: now, progress: null })
      .where(and(
        eq(jobs.id, req.job_id),
        eq(jobs.status, 'extracting_audio'),
        isNull(jobs.currentAttemptId),
        lt(jobs.attemptCount, ctx.config.MAX_ATTEMPTS),
      ))
      .returning();
    if (!row) return null;
    await tx.insert(jobAttempts).values({ id: attemptId, jobId: row.id, agentId: req.agent_id, startedAt: now });
    await tx.insert(jobEvents).values({ jobId: row.id, fromStatus: row.status, toStatus: row.status, reason: `claimed by ${req.agent_id}`, attemptId, createdAt: now });
    return row;
  });
  if (!job) return { v: 1, claimed: false, reason: 'job is not waiting for an agent' };
  if (!job.sourceKey) throw new Error(`queued job ${job.id} has no source key`);

  // URLs must outlive the longest run; the lease, not the URL, bounds a stuck attempt.
  const ttl = Math.max(ctx.config.PRESIGN_TTL_SECONDS, 6 * 3600);
  const outputs: Assignment['outputs'] = {};
  for (const [name, contentType] of Object.entries(TRANSCRIBE_OUTPUTS)) {
    const key = outputKeyOf(job.id, name);
    outputs[name] = { key, content_type: contentType, put_url: await ctx.blobs.presignPut(key, { expiresInSeconds: ttl, contentType }) };
  }
  const language = typeof job.params['language'] === 'string' ? job.params['language'] : null;
  ctx.logger.info({ job_id: job.id, attempt_id: attemptId, agent_id: req.agent_id }, 'job claimed');
  return {
    v: 1,
    claimed: true,
    assignment: {
      v: 1,
      job_id: job.id,
      attempt_id: attemptId,
      job_type: 'transcribe',
      kind: workKindOf(job.jobType),
      lease_ms: lease,
      source: {
        get_url: await ctx.blobs.presignGet(job.sourceKey, { expiresInSeconds: ttl }),
        content_type: job.contentType,
        size: job.fileSize,
      },
      outputs,
      params: { language, model: ctx.config.WHISPER_MODEL },
    },
  };
}
