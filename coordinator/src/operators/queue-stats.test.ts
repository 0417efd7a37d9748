import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob } from '../agents/claim.ts';
import { addAgent, createEngineCtx, type EngineCtx, queueTranscribeJob } from '../testing/engine-ctx.ts';
import { queueStats, queueStatsOf } from './queue-stats.ts';

describe('queueStatsOf', () => {
  const now = new Date('2026-11-01T00:01:00Z');
  it('folds job types into their work kinds, oldest first, every kind present', () => {
    const s = queueStatsOf(
      [
        { jobType: 'find_clips', queued: 2, oldestMs: Date.parse('2026-11-01T00:00:30Z') },
        { jobType: 'summarize', queued: 1, oldestMs: Date.parse('2026-11-01T00:00:00Z') },
        { jobType: 'extract_clip', queued: 3, oldestMs: null },
        { jobType: 'clips_vertical', queued: 9, oldestMs: 0 },
      ],
      now,
    );
    expect(s.understand).toEqual({ queued: 3, oldestQueuedAt: new Date('2026-11-01T00:00:00Z'), oldestAgeSeconds: 60 });
    expect(s.cut).toEqual({ queued: 3, oldestQueuedAt: null, oldestAgeSeconds: 0 });
    expect(s.transcribe).toEqual({ queued: 0, oldestQueuedAt: null, oldestAgeSeconds: 0 });
  });
});

describe('queueStats (PGlite, manual clock)', () => {
  let ctx: EngineCtx;
  beforeAll(async () => {
    ctx = await createEngineCtx();
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('counts a job from the event that queued it until an agent claims it', async () => {
    expect((await queueStats(ctx)).transcribe.queued).toBe(0);
    const queuedAt = ctx.clock.now();
    const { jobId } = await queueTranscribeJob(ctx);
    ctx.clock.advance(42_000);
    expect((await queueStats(ctx)).transcribe).toEqual({ queued: 1, oldestQueuedAt: queuedAt, oldestAgeSeconds: 42 });
    await addAgent(ctx, 'agent-1', ['transcribe']);
    const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: 'agent-1' });
    expect(r.claimed).toBe(true);
    expect((await queueStats(ctx)).transcribe).toEqual({ queued: 0, oldestQueuedAt: null, oldestAgeSeconds: 0 });
  });
});
