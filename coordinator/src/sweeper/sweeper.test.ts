import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob } from '../agents/claim.ts';
import { heartbeat } from '../agents/attempts.ts';
import { jobAttempts, outbox } from '../db/schema.ts';
import { createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { sweepOnce } from './sweeper.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ MAX_ATTEMPTS: '2', LEASE_MS: '30000' });
});
afterAll(async () => {
  await ctx.close();
});

async function claim(jobId: string, agentId: string) {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return r.assignment.attempt_id;
}

describe('sweeper (PGlite, manual clock)', () => {
  it('leaves a lease that is still running, or renewed, alone', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const attemptId = await claim(jobId, 'alive');
    ctx.clock.advance(20_000);
    await heartbeat(ctx, { v: 1, job_id: jobId, attempt_id: attemptId, agent_id: 'alive' });
    ctx.clock.advance(20_000);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, jobId)).currentAttemptId).toBe(attemptId);
  });

  it('requeues an expired lease with a new wake-up and tells the old holder to stop; fails after MAX_ATTEMPTS', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const wakeups = async () => (await ctx.db.select().from(outbox)).filter((r) => (r.payload as { job_id: string }).job_id === jobId).length;
    expect(await wakeups()).toBe(1);

    const first = await claim(jobId, 'doomed');
    ctx.clock.advance(30_001);
    expect((await sweepOnce(ctx)).requeued).toBeGreaterThanOrEqual(1);
    expect(await jobRow(ctx, jobId)).toMatchObject({ status: 'extracting_audio', currentAttemptId: null, leaseExpiresAt: null });
    expect(await wakeups()).toBe(2);
    expect(ctx.notified.cancelled).toContain(first);

    const second = await claim(jobId, 'doomed-too');
    ctx.clock.advance(30_001);
    expect((await sweepOnce(ctx)).failed).toBeGreaterThanOrEqual(1);
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'attempts_exhausted' });
    expect(job.errorMessage).toMatch(/did not finish after 2 attempts/);
    const attempts = await ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId));
    expect(attempts.map((a) => [a.id, a.outcome, a.errorCode])).toEqual([
      [first, 'lease_expired', 'lease_expired'],
      [second, 'lease_expired', 'lease_expired'],
    ]);
  });

  it('deletes a finished job’s files and marks it deleted once past its retention', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await claim(jobId, 'short-lived');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx);
    await claim(jobId, 'short-lived-2');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx); // failed: kept a day for inspection
    expect(await ctx.blobs.head(`jobs/${jobId}/source`)).not.toBeNull();
    ctx.clock.advance(24 * 3600_000 + 1);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, jobId)).status).toBe('deleted');
    expect(await ctx.blobs.head(`jobs/${jobId}/source`)).toBeNull();
  });
});
