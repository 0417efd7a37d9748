import type { JsMsg } from '@nats-io/jetstream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { cancelSubject, type Assignment, type ClaimResponse } from '@cutroom/proto';
import { loadAgentConfig } from '../config.ts';
import { TransientError } from '../coordinator-client.ts';
import { AttemptAbortedError, CoordinatorError } from '../errors.ts';
import { createManualClock } from '../manual-clock.ts';
import type { Pipeline, PipelineContext } from '../pipelines/pipeline.ts';
import { handleWakeup, type WakeupDeps } from './handle-wakeup.ts';

const jobId = '0190a5a0-0000-7000-8000-000000000001';
const attemptId = '0190a5a0-0000-7000-8000-000000000002';
const wakeup = { v: 1, job_id: jobId, kind: 'transcribe', enqueued_at: '2026-01-01T00:00:00.000Z' };
const assignment: Assignment = {
  v: 1,
  job_id: jobId,
  attempt_id: attemptId,
  job_type: 'transcribe',
  kind: 'transcribe',
  lease_ms: 30_000,
  source: { get_url: 'http://127.0.0.1:1/source', content_type: 'audio/wav', size: null },
  params: { language: null, model: 'tiny.en' },
  outputs: {},
};
const ok = { v: 1 as const, lease_expires_at: '2026-01-01T00:00:30.000Z', cancel: false };

/** A JetStream message that records how it was settled. */
function fakeMsg(body: unknown) {
  const msg = {
    subject: 'cutroom.work.v1.transcribe',
    seq: 7,
    json: () => {
      if (body instanceof Error) throw body;
      return body;
    },
    ack: vi.fn(),
    nak: vi.fn(),
    term: vi.fn(),
    working: vi.fn(),
  };
  return { msg, jsMsg: msg as unknown as JsMsg };
}

function setup(claim: () => Promise<ClaimResponse>, run: Pipeline<'transcribe'>['run'] = async () => 'completed') {
  const logs: Record<string, unknown>[] = [];
  const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const unsubscribe = vi.fn();
  const nc = { subscribe: vi.fn(() => ({ unsubscribe })), publish: vi.fn() };
  const client = {
    register: vi.fn(),
    announce: vi.fn(),
    natsCredential: vi.fn(),
    claim: vi.fn(claim),
    heartbeat: vi.fn(async () => ok),
    stage: vi.fn(),
    complete: vi.fn(),
    fail: vi.fn(),
    enroll: vi.fn(),
    rotate: vi.fn(),
  };
  const stop = new AbortController();
  const transcribe = { kind: 'transcribe' as const, missing: () => [], run: vi.fn(run) };
  const deps: WakeupDeps = {
    config: loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:8080', AGENT_TOKEN: 't', NATS_URL: 'nats://127.0.0.1:4222', AGENT_ID: 'agent-1' }),
    client,
    whisper: { device: 'cpu', computeType: 'int8' },
    host: {
      ffmpeg: { version: '5.1', encoders: ['aac', 'libx264'] },
      nvenc: false,
      cuda: { available: false, devices: [] },
      whisperModels: { isRunnable: true, models: ['tiny.en'] },
      freeDiskBytes: 1e10,
    },
    // Only transcribe is claimed in these tests; the cut pipelines are never reached.
    pipelines: { transcribe } as unknown as WakeupDeps['pipelines'],
    nc: nc as unknown as WakeupDeps['nc'],
    logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) }),
    clock,
    stopSignal: stop.signal,
  };
  return { deps, client, nc, unsubscribe, clock, logs, stop, run: transcribe.run };
}

describe('handleWakeup', () => {
  it('terminates a wake-up it cannot read', async () => {
    const { deps, client } = setup(async () => ({ v: 1, claimed: false, reason: 'x' }));
    const { msg, jsMsg } = fakeMsg(new SyntaxError('Unexpected token'));
    await expect(handleWakeup(jsMsg, deps)).resolves.toBe('malformed');
    expect(msg.term).toHaveBeenCalledOnce();
    expect(client.claim).not.toHaveBeenCalled();
  });

  it('acks a wake-up it did not get to claim', async () => {
    const { deps, client, run } = setup(async () => ({ v: 1, claimed: false, reason: 'already claimed' }));
    const { msg, jsMsg } = fakeMsg(wakeup);
    await expect(handleWakeup(jsMsg, deps)).resolves.toBe('not_claimed');
    expect(client.claim).toHaveBeenCalledWith({ v: 1, job_id: jobId, agent_id: 'agent-1' }, deps.stopSignal);
    expect(msg.ack).toHaveBeenCalledOnce();
    expect(msg.nak).not.toHaveBeenCalled();
    expect(run).not.toHaveBeenCalled();
  });

  it("naks with the coordinator's delay when it leaves the job to another agent, and logs that at debug", async () => {
    const { deps, logs } = setup(async () => ({ v: 1, claimed: false, reason: 'this agent already failed the job', retry_after_ms: 30_000 }));
    const { msg, jsMsg } = fakeMsg(wakeup);
    await expect(handleWakeup(jsMsg, deps)).resolves.toBe('not_claimed');
    expect(msg.nak).toHaveBeenCalledExactlyOnceWith(30_000);
    expect(msg.ack).not.toHaveBeenCalled();
    expect(logs).toContainEqual(expect.objectContaining({ level: 20, job_id: jobId, retry_after_ms: 30_000 }));
  });

  it('naks for redelivery when the coordinator is unreachable, acks when it refuses outright', async () => {
    const down = setup(async () => {
      throw new TransientError('ECONNREFUSED');
    });
    const first = fakeMsg(wakeup);
    await handleWakeup(first.jsMsg, down.deps);
    expect(first.msg.nak).toHaveBeenCalledExactlyOnceWith(5_000);
    expect(first.msg.ack).not.toHaveBeenCalled();

    const refused = setup(async () => {
      throw new CoordinatorError(403, 'forbidden');
    });
    const second = fakeMsg(wakeup);
    await handleWakeup(second.jsMsg, refused.deps);
    expect(second.msg.ack).toHaveBeenCalledOnce();
    expect(second.msg.nak).not.toHaveBeenCalled();
  });

  it("runs a claimed assignment through its job type's pipeline under a lease, then acks", async () => {
    let seen: PipelineContext | undefined;
    const { deps, client, nc, unsubscribe, clock, run } = setup(
      async () => ({ v: 1, claimed: true, assignment }),
      async (_a, _signal, ctx) => {
        seen = ctx;
        // Half the lease passes mid-attempt: the keeper renews it on the agent's clock.
        await clock.advance(15_000);
        return 'completed';
      },
    );
    const { msg, jsMsg } = fakeMsg(wakeup);
    await expect(handleWakeup(jsMsg, deps)).resolves.toBe('completed');

    const fence = { v: 1, job_id: jobId, attempt_id: attemptId, agent_id: 'agent-1' };
    expect(run).toHaveBeenCalledWith(assignment, expect.any(AbortSignal), expect.objectContaining({ fence, clock }));
    expect(seen?.logger.bindings()).toMatchObject({ job_id: jobId, attempt_id: attemptId });
    expect(nc.subscribe).toHaveBeenCalledWith(cancelSubject('agent-1', attemptId), expect.anything());
    expect(client.heartbeat).toHaveBeenCalledExactlyOnceWith(fence);
    expect(msg.working).toHaveBeenCalledOnce();
    expect(msg.ack).toHaveBeenCalledOnce();
    // The lease keeper is gone with the attempt: no timer left, cancel subject unsubscribed.
    expect(unsubscribe).toHaveBeenCalledOnce();
    expect(clock.pending()).toBe(0);
  });

  it('aborts the running attempt when the agent stops, and still acks', async () => {
    let reason: unknown;
    const { deps, stop } = setup(
      async () => ({ v: 1, claimed: true, assignment }),
      (_a, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve('aborted');
          });
          stop.abort(new Error('agent stopping'));
        }),
    );
    const { msg, jsMsg } = fakeMsg(wakeup);
    await expect(handleWakeup(jsMsg, deps)).resolves.toBe('aborted');
    expect(reason).toMatchObject({ name: 'AttemptAbortedError', why: 'shutdown' });
    expect(reason).toBeInstanceOf(AttemptAbortedError);
    expect(msg.ack).toHaveBeenCalledOnce();
  });
});
