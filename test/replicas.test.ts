import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobAttempts, jobOutputs, outbox } from '../coordinator/src/db/schema.ts';
import { SYSTEM_OPERATOR, startAgentChild } from '../coordinator/src/embedded/agent-children.ts';
import { setAgentState } from '../coordinator/src/operators/agent-control.ts';
import { freePort, waitFor } from './fixtures/index.ts';
import { apiClient } from './harness/api.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Two coordinators on one Postgres, one NATS and one S3 serve the same API, and every background
 * worker (outbox relay, sweeper, refunder, publish worker) runs on both (ADR 0008). Replica B is a
 * process of its own (coordinator/src/main.ts), killed with SIGKILL mid-flight; replica A (the
 * stack's, in this process) carries on alone: nothing is lost, nothing runs twice.
 */
describe('two coordinator replicas, one killed mid-flight', () => {
  let stack: Stack;
  const children: ResultPromise[] = [];
  const work = mkdtempSync(join(tmpdir(), 'cutroom-replicas-'));
  const speech = join(work, 'speech.wav');

  async function replica(name: string) {
    const port = await freePort();
    const child = execa('bash', ['scripts/run-node.sh', 'coordinator/src/main.ts'], {
      env: { ...stack.coordinatorEnv, PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), `cutroom-replica-${name}-`)), LOG_LEVEL: 'warn' },
      reject: false,
      all: true,
    });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/health`).catch(() => null))?.ok === true, 60_000, { description: `replica ${name} to start` });
    return { child, url, api: apiClient(url) };
  }
  const attemptsOf = (id: string) => stack.coordinator.ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id));
  const outputsOf = (id: string) => stack.coordinator.ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, id));

  beforeAll(async () => {
    await concatWavs(
      librivoxUtterances()
        .slice(0, 4)
        .map((u) => u.file),
      speech,
    );
    // Short leases: a job held by an agent that lost its coordinator is retaken within seconds.
    stack = await startStack({ agents: 1, leaseMs: 6_000 });
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await stack?.stop();
  });

  it('a job whose upload was completed on the replica that died is dispatched by the other', async () => {
    const b = await replica('b1');
    const token = await b.api.newSession();
    const created = await b.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' } });
    const id = created.body.job_id as string;
    const up = await b.api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
    const { readFileSync } = await import('node:fs');
    expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(speech) })).ok).toBe(true);
    expect((await b.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);
    // Killed right after answering: its relay may not have published the wake-up (the row is committed).
    b.child.kill('SIGKILL');
    await b.child;

    // The session, the job and its wake-up are in Postgres: replica A answers and its relay publishes.
    const job = await stack.api.waitForJob(token, id, undefined, 120_000);
    expect(job.status, job.error_message).toBe('completed');
    expect((await attemptsOf(id)).map((a) => a.outcome)).toEqual(['completed']);
    expect((await outputsOf(id)).map((o) => o.role)).toEqual(['transcript']);
    const rows = await stack.coordinator.ctx.db.select().from(outbox);
    expect(rows.every((r) => r.publishedAt !== null)).toBe(true);
  });

  it('an agent whose coordinator died mid-job loses the lease; the job is retaken through the other replica, once', async () => {
    const b = await replica('b2');
    // Only an agent talking to replica B may take the next job: the stack's agent (on A) is drained.
    const ctx = stack.coordinator.ctx;
    await setAgentState(ctx, SYSTEM_OPERATOR, 'test-agent-1', 'draining');
    const auth = await stack.agentAuth('agent-on-b');
    stack.agents.push(startAgentChild({ id: 'agent-on-b', coordinatorUrl: b.url, natsUrl: stack.natsUrl, auth, env: { LOG_LEVEL: 'warn' } }));

    const token = await stack.api.newSession();
    const id = await stack.api.submitTranscribe(token, speech, 'talk.wav', 'audio/wav');
    await waitFor(async () => (await attemptsOf(id)).length > 0, 60_000, { description: 'agent-on-b to claim the job' });
    b.child.kill('SIGKILL');
    await b.child;
    await setAgentState(ctx, SYSTEM_OPERATOR, 'test-agent-1', 'active');

    const job = await stack.api.waitForJob(token, id, undefined, 150_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.payment_status).toBe('paid');
    // Its agent could not report through the dead replica: the attempt ended by its lease, and the
    // job ran again on the agent of the live replica. One completion.
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.agentId, a.outcome])).toEqual([
      ['agent-on-b', 'lease_expired'],
      ['test-agent-1', 'completed'],
    ]);
    // One output set: the completing attempt's keys.
    const outputs = await outputsOf(id);
    expect(outputs.map((o) => o.role)).toEqual(['transcript']);
    const completed = attempts.find((a) => a.outcome === 'completed')!;
    expect(outputs[0]!.storageKey).toContain(`/outputs/${completed.id}/`);
  });
});
