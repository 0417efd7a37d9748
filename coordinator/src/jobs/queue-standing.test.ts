import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimJob } from '../agents/claim.ts';
import { createJobCall, createSessionCall, getJobCall } from '../service/index.ts';
import { addAgent, createEngineCtx, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { DEFAULT_ATTEMPT_SECONDS, DEFAULT_SECONDS_PER_MEDIA_MINUTE } from './queue-estimate.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});
beforeEach(async () => {
  await ctx.reset();
});

type Queued = Awaited<ReturnType<typeof queueTranscribeJob>>;
const creds = (token: string) => ({ bearer: token, authorization: `Bearer ${token}`, paymentSignature: undefined, resourceUrl: 'http://test/' });
const read = (q: { jobId: string; token: string }) => getJobCall(ctx, creds(q.token), q.jobId);
const inSeconds = (s: number) => new Date(ctx.clock.now().getTime() + s * 1000).toISOString();
const T = DEFAULT_ATTEMPT_SECONDS['transcribe']!;

describe('queue standing and estimates (GET /jobs/{id} `queue`, POST /jobs `estimate`)', () => {
  it('shows a queued job its place in its kind’s queue and when it should start, and nothing once it runs', async () => {
    // Queued a second apart: the queue's order is when each was queued.
    const queued = [];
    for (let i = 0; i < 3; i++) {
      queued.push(await queueTranscribeJob(ctx));
      ctx.clock.advance(1000);
    }
    const [a, b, c] = queued as [Queued, Queued, Queued];
    // No agent takes transcription yet: a place, no start.
    expect((await read(c)).queue).toEqual({ position: 3, running: 0, agents: 0, estimated_start_at: null, estimated_processing_seconds: T, basis: 'defaults' });
    await addAgent(ctx, 'agent-1', ['transcribe']);
    expect((await read(a)).queue).toMatchObject({ position: 1, agents: 1, estimated_start_at: inSeconds(0) });
    expect((await read(c)).queue).toMatchObject({ position: 3, agents: 1, estimated_start_at: inSeconds(2 * T) });
    // The agent takes the first: it shows no queue; the others move up, behind what it runs.
    expect((await claimJob(ctx, { v: 1, job_id: a.jobId, agent_id: 'agent-1' })).claimed).toBe(true);
    expect((await read(a)).queue).toBeUndefined();
    ctx.clock.advance(10_000);
    expect((await read(b)).queue).toMatchObject({ position: 1, running: 1, estimated_start_at: inSeconds(T - 10) });
    expect((await read(c)).queue).toMatchObject({ position: 2, running: 1, estimated_start_at: inSeconds(2 * T - 10) });
    // A second agent halves the line.
    await addAgent(ctx, 'agent-2', ['transcribe', 'cut']);
    expect((await read(c)).queue).toMatchObject({ position: 2, agents: 2, estimated_start_at: inSeconds(T - 10) });
  });

  it('answers an estimate at creation, before payment: seconds per media minute and the wait were it queued now', async () => {
    await queueTranscribeJob(ctx);
    await addAgent(ctx, 'agent-1', ['transcribe']);
    const s = await createSessionCall(ctx);
    const created = await createJobCall(ctx, creds(s.session_token), { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' });
    expect(created.value.estimate).toEqual({
      processing_seconds_per_media_minute: DEFAULT_SECONDS_PER_MEDIA_MINUTE['transcribe'],
      typical_processing_seconds: T,
      queue_wait_seconds: T,
      basis: 'defaults',
    });
  });
});
