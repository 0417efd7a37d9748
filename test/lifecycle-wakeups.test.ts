import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTES, WORK_STREAM, workConsumerName } from '@cutroom/proto';
import { jobAttempts } from '../coordinator/src/db/schema.ts';
import { sweepOnce, sweepPolicy } from '../coordinator/src/sweeper/sweeper.ts';
import { wakeupPass } from '../coordinator/src/sweeper/wakeup-pass.ts';
import { waitFor } from './fixtures/index.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Wake-ups are hints; Postgres is the truth. A job whose only wake-up is gone (the stream lost
 * it, or an agent acked it after the coordinator refused its claim with a 4xx) is still queued
 * in the database, and the sweeper's wake-up pass publishes a new one: the job completes.
 */
describe('lost wake-ups on the real stack', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let token: string;
  const audio = librivoxUtterances()[1]!.file;

  beforeAll(async () => {
    stack = await startStack({ storage: 'local', agents: 0 });
    nc = await stack.connectNats();
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
  });

  const attemptsOf = (jobId: string) =>
    stack.coordinator.ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId)).orderBy(asc(jobAttempts.startedAt));
  const streamMessages = async () => (await (await jetstreamManager(nc)).streams.info(WORK_STREAM)).state.messages;

  it('re-publishes a wake-up dropped by the stream or acked after a refused claim, and both jobs complete', async () => {
    const jsm = await jetstreamManager(nc);

    // 1. The stream loses the wake-up (a nats-server that came back without its store).
    const dropped = await stack.api.submitTranscribe(token, audio, 'dropped.wav', 'audio/wav');
    await waitFor(async () => (await streamMessages()) === 1, 15_000, { description: 'the relay to publish the first wake-up' });
    await jsm.streams.purge(WORK_STREAM);

    // 2. An agent takes the wake-up, its claim is refused with a 4xx (a token the coordinator
    //    does not know), and it acks the message as the protocol tells it to.
    const refused = await stack.api.submitTranscribe(token, audio, 'refused.wav', 'audio/wav');
    const consumer = await jetstream(nc).consumers.get(WORK_STREAM, workConsumerName('transcribe'));
    const msg = await consumer.next({ expires: 15_000 });
    expect(msg?.json()).toMatchObject({ job_id: refused });
    const claim = await fetch(`${stack.coordinator.agentUrl}${AGENT_ROUTES.claim}`, {
      method: 'POST',
      headers: { authorization: 'Bearer a-rotated-agent-token-000', 'content-type': 'application/json' },
      body: JSON.stringify({ v: 1, job_id: refused, agent_id: 'outdated-agent' }),
    });
    expect(claim.status).toBe(401);
    msg!.ack();
    await waitFor(async () => (await streamMessages()) === 0, 15_000, { description: 'the acked wake-up to leave the work queue' });

    // A healthy agent now pulls, but there is nothing to pull: both jobs would wait forever.
    await stack.startAgent('healthy-agent');
    await sleep(5000);
    for (const id of [dropped, refused]) {
      expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.status).toBe('extracting_audio');
      expect(await attemptsOf(id)).toEqual([]);
    }

    // The wake-up pass, with a bound of zero instead of its default minutes.
    const swept = await sweepOnce(stack.coordinator.ctx, [wakeupPass(sweepPolicy(stack.coordinator.ctx.config, { republishAfterMs: 0 }))]);
    expect(swept.wakeups).toMatchObject({ republished: 2, failed: 0 });
    for (const id of [dropped, refused]) {
      const job = await stack.api.waitForJob(token, id, undefined, 120_000);
      expect(job.status, job.error_message).toBe('completed');
      expect((await attemptsOf(id)).map((a) => [a.agentId, a.outcome])).toEqual([['healthy-agent', 'completed']]);
    }
  });

  it('recreates a work stream that NATS lost, so new work flows again, and re-publishes what the stream held', async () => {
    const jsm = await jetstreamManager(nc);
    const { ctx } = stack.coordinator;
    for (const agent of stack.agents) await agent.stop();

    const lost = await stack.api.submitTranscribe(token, audio, 'lost.wav', 'audio/wav');
    await waitFor(async () => (await streamMessages()) === 1, 15_000, { description: 'the relay to publish the wake-up' });
    // A nats-server that came back without its store: no stream, no consumers, no messages.
    await jsm.streams.delete(WORK_STREAM);
    await stack.startAgent('after-loss-agent');

    // New work: the relay's publish fails, it recreates the stream and its consumers, the agent
    // rebinds, and the job runs without any help from the sweeper.
    const fresh = await stack.api.submitTranscribe(token, audio, 'fresh.wav', 'audio/wav');
    const freshJob = await stack.api.waitForJob(token, fresh, undefined, 120_000);
    expect(freshJob.status, freshJob.error_message).toBe('completed');
    expect((await attemptsOf(lost)).length).toBe(0);

    // What the old stream held is the wake-up pass's to replace.
    expect((await sweepOnce(ctx, [wakeupPass(sweepPolicy(ctx.config, { republishAfterMs: 0 }))])).wakeups).toMatchObject({ republished: 1 });
    const lostJob = await stack.api.waitForJob(token, lost, undefined, 120_000);
    expect(lostJob.status, lostJob.error_message).toBe('completed');
    expect((await attemptsOf(lost)).map((a) => [a.agentId, a.outcome])).toEqual([['after-loss-agent', 'completed']]);
  });
});
