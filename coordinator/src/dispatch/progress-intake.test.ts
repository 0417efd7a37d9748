import type { NatsConnection, Msg } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressSubject } from '@cutroom/proto';
import { claimJob } from '../agents/claim.ts';
import { reportStage } from '../agents/attempts.ts';
import { addAgent, createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { startProgressIntake } from './progress-intake.ts';

/** A NATS connection that hands the intake's callback to the test: it publishes by calling it. */
function fakeNats() {
  let deliver: ((err: Error | null, msg: Msg) => void) | undefined;
  const nc = {
    subscribe: (_subject: string, opts: { callback: (err: Error | null, msg: Msg) => void }) => {
      deliver = opts.callback;
      return { unsubscribe: () => undefined };
    },
  } as unknown as NatsConnection;
  const publish = (subject: string, body: unknown) => deliver!(null, { subject, string: () => JSON.stringify(body) } as Msg);
  return { nc, publish };
}

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

describe('progress intake: only the attempt’s owner moves its progress', () => {
  it('takes the owner’s event and drops one under another name, or naming an attempt that is not the sender’s', async () => {
    await addAgent(ctx, 'owner-a');
    await addAgent(ctx, 'other-b');
    const { jobId } = await queueTranscribeJob(ctx);
    const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: 'owner-a' });
    if (!r.claimed) throw new Error(r.reason);
    const fence = { v: 1 as const, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: 'owner-a' };
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: { duration_seconds: 5, has_audio: true, has_video: false, format_name: 'wav' } });
    const { nc, publish } = fakeNats();
    const intake = startProgressIntake({ db: ctx.db, nc, logger: ctx.logger, flushMs: 3_600_000 });
    const event = (agent: string, fraction: number) => ({ ...fence, agent_id: agent, stage: 'transcribing', fraction, at: new Date().toISOString() });
    const progress = async () => (await jobRow(ctx, jobId)).progress as { fraction: number } | null;

    const before = await progress();
    expect(before?.fraction ?? 0).toBe(0);
    // Another agent, on its own subject, naming the owner's attempt: NATS lets it publish there, the database refuses.
    publish(progressSubject('other-b', jobId), event('other-b', 0.9));
    await intake.flush();
    expect(await progress()).toEqual(before);
    // Under another agent's name (NATS refuses this publish; the intake refuses it as well).
    publish(progressSubject('other-b', jobId), event('owner-a', 0.8));
    await intake.flush();
    expect(await progress()).toEqual(before);
    // The owner.
    publish(progressSubject('owner-a', jobId), event('owner-a', 0.25));
    await intake.flush();
    expect(await progress()).toMatchObject({ fraction: 0.25 });
    await intake.stop();
  });
});
