import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobAttempts } from '../db/schema.ts';
import { addAgent, createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { failAttempt } from './attempts.ts';
import { AGENT_LIVE_MS, RETRY_ELSEWHERE_MS, claimJob } from './claim.ts';

// One database per file (PGlite starts in about 2 s); every test makes its own jobs and agent names.
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000); // PGlite runs the migrations: seconds on a busy machine
afterAll(async () => {
  await ctx.close();
});

const claim = (jobId: string, agentId: string) => claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });

describe('claims (PGlite, manual clock)', () => {
  it('gives a queued job to exactly one of many racing agents', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(jobId, `agent-${i}`)));
    const winners = results.filter((r) => r.claimed);
    expect(winners).toHaveLength(1);
    const attempts = await ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId));
    expect(attempts).toHaveLength(1);
    const job = await jobRow(ctx, jobId);
    expect(job.currentAttemptId).toBe(winners[0]!.claimed ? winners[0]!.assignment.attempt_id : null);
    expect(job.attemptCount).toBe(1);
  });

  it('builds the job type’s assignment variant with every output it writes', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const r = await claim(jobId, 'agent-1');
    if (!r.claimed) throw new Error('not claimed');
    // No WHISPER_MODEL on the coordinator: the model is each agent's own (its WHISPER_MODEL).
    expect(r.assignment).toMatchObject({ job_type: 'transcribe', kind: 'transcribe', lease_ms: 30_000, params: { language: null, model: '' } });
    expect(Object.keys(r.assignment.outputs).sort()).toEqual(['transcript_srt', 'transcript_words']);
    expect(r.assignment.source.content_type).toBe('audio/wav');
  });

  it('asks every agent for the coordinator’s WHISPER_MODEL when one is set', async () => {
    const own = await createEngineCtx({ WHISPER_MODEL: 'base' });
    try {
      await addAgent(own, 'agent-1');
      const { jobId } = await queueTranscribeJob(own);
      const r = await claimJob(own, { v: 1, job_id: jobId, agent_id: 'agent-1' });
      expect(r.claimed && r.assignment.params).toEqual({ language: null, model: 'base' });
    } finally {
      await own.close();
    }
  });

  it('refuses a job that is not queued: still uploading, already held, or out of attempts', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    expect((await claim(jobId, 'a')).claimed).toBe(true);
    expect(await claim(jobId, 'b')).toMatchObject({ claimed: false, reason: 'job is not waiting for an agent' });
    expect((await claim(crypto.randomUUID(), 'a')).claimed).toBe(false);
  });

  it('keeps a job from the agent that failed it while another live agent can take it', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await addAgent(ctx, 'k-a');
    await addAgent(ctx, 'k-b');
    const first = await claim(jobId, 'k-a');
    if (!first.claimed) throw new Error('not claimed');
    await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: first.assignment.attempt_id, agent_id: 'k-a', code: 'tool_failed', message: 'ffmpeg crashed' });
    expect((await jobRow(ctx, jobId)).status).toBe('extracting_audio');

    expect(await claim(jobId, 'k-a')).toMatchObject({ claimed: false, retry_after_ms: RETRY_ELSEWHERE_MS });
    const second = await claim(jobId, 'k-b');
    expect(second.claimed).toBe(true);
  });

  it('holds a requeued job for its back-off, doubling with each failure', async () => {
    const config = ctx.config as { RETRY_BACKOFF_MS: number };
    config.RETRY_BACKOFF_MS = 5000;
    try {
      const { jobId } = await queueTranscribeJob(ctx);
      await addAgent(ctx, 'b-a');
      await addAgent(ctx, 'b-b');
      const fail = async (agent: string) => {
        const r = await claim(jobId, agent);
        if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
        await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: agent, code: 'tool_failed', message: 'store down' });
      };
      await fail('b-a');
      expect(await claim(jobId, 'b-b')).toMatchObject({ claimed: false, reason: 'the job retries after a back-off', retry_after_ms: 5000 });
      ctx.clock.advance(4000);
      expect(await claim(jobId, 'b-b')).toMatchObject({ claimed: false, retry_after_ms: 1000 });
      ctx.clock.advance(1000);
      await fail('b-b');
      expect(await claim(jobId, 'b-a')).toMatchObject({ claimed: false, retry_after_ms: 10_000 });
      ctx.clock.advance(10_000);
      await addAgent(ctx, 'b-c');
      expect((await claim(jobId, 'b-c')).claimed).toBe(true);
    } finally {
      config.RETRY_BACKOFF_MS = 0;
    }
  });

  it('lets the failing agent retry when no other live agent serves the kind', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await addAgent(ctx, 'r-a');
    await addAgent(ctx, 'r-b');
    const first = await claim(jobId, 'r-a');
    if (!first.claimed) throw new Error('not claimed');
    await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: first.assignment.attempt_id, agent_id: 'r-a', code: 'internal', message: 'boom' });
    // Every other agent has been silent for longer than the liveness window, except one that
    // serves another kind of work.
    ctx.clock.advance(AGENT_LIVE_MS + 1);
    await addAgent(ctx, 'r-a');
    await addAgent(ctx, 'r-gpu-only', ['some_other_kind']);
    expect((await claim(jobId, 'r-a')).claimed).toBe(true);
  });
});
