import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { and, eq } from 'drizzle-orm';
import { EventSource, type FetchLike } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTES } from '@cutroom/proto';
import type { AdminRouter } from '../coordinator/src/admin/router.ts';
import { jobAttempts, ledgerEntries } from '../coordinator/src/db/schema.ts';
import { startAgentChild } from '../coordinator/src/embedded/agent-children.ts';
import { waitFor } from './fixtures/net-utils.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Operating the farm end to end, as an operator does it through the admin API (tRPC over HTTP,
 * subscriptions over SSE) against real Postgres, NATS, agents and a local chain: tag routing, a
 * second host enrolled with a minted token, drain under load, cancel with a refund on the chain,
 * revocation, and the API refusing a caller.
 */
describe('operating the farm through the admin API', () => {
  let stack: Stack;
  let admin: ReturnType<typeof adminClient>;
  let payer: ReturnType<typeof chainPayer>;
  const audio = librivoxUtterances()[0]!.file;

  function adminClient(base: string, token: string) {
    const headers = { authorization: `Bearer ${token}` };
    const withAuth: FetchLike = (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...headers } });
    return createTRPCClient<AdminRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: `${base}/admin/trpc`, EventSource, eventSourceOptions: { fetch: withAuth } }),
          false: httpLink({ url: `${base}/admin/trpc`, headers }),
        }),
      ],
    });
  }

  /** A paid transcribe job as a stock MPP client makes one (paid creation: job + session), uploaded unless told not to. */
  async function paidTranscribe(upload = true): Promise<{ id: string; token: string }> {
    const res = await payer.mppx.fetch(`${stack.coordinator.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' }),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { job_id: string; session_token: string };
    const token = created.session_token;
    if (upload) {
      const url = await stack.api.call('GET', `/api/v1/jobs/${created.job_id}/upload-url`, { token });
      expect((await fetch(url.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(audio) })).ok).toBe(true);
      expect((await stack.api.call('POST', `/api/v1/jobs/${created.job_id}/complete-upload`, { token })).status).toBe(200);
    }
    return { id: created.job_id, token };
  }
  const attemptsOf = (id: string) => stack.coordinator.ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id));
  const agentView = async (id: string) => (await admin.agents.list.query()).find((a) => a.id === id);

  beforeAll(async () => {
    stack = await startStack({ billing: true, storage: 'local', agents: 0, env: { ROUTING_TAGS: 'transcribe=pool-b' } });
    admin = adminClient(stack.coordinator.url, stack.adminToken);
    payer = chainPayer(stack.billing!);
    await stack.startAgent('plain-agent');
    await waitFor(async () => (await agentView('plain-agent'))?.state === 'online', 60_000, { description: 'plain-agent to come online' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  let gpuCredentialFile: string;
  it('a job that needs a tag waits; a second host enrolled with a minted token (and the tag) takes it; the farm view follows live', async () => {
    const seen: string[][] = [];
    const sub = admin.agents.watch.subscribe(undefined, { onData: (agents) => seen.push(agents.map((a) => `${a.id}:${a.state}`)) });
    const job = await paidTranscribe();
    // The only agent lacks the tag: refused at every claim, the job stays queued with no attempt.
    await new Promise((r) => setTimeout(r, 6000));
    expect(await attemptsOf(job.id)).toEqual([]);
    const queue = await admin.queue.stats.query();
    expect(queue.find((q) => q.kind === 'transcribe')).toMatchObject({ queued: 1, running: 0, required_tags: ['pool-b'] });
    expect((await stack.api.call('GET', `/api/v1/jobs/${job.id}`, { token: job.token })).body.status).toBe('extracting_audio');

    // The operator mints a token and runs the documented command on the new host (here: this machine).
    const minted = await admin.enrollment.mint.mutate({ tags: ['pool-b', 'gpu'] });
    expect(minted.command).toContain(`AGENT_ENROLLMENT_TOKEN=${minted.token}`);
    expect(minted.command).toContain(`NATS_URL=${stack.natsUrl}`);
    gpuCredentialFile = join(mkdtempSync(join(tmpdir(), 'cutroom-gpu-host-')), 'agent-credential.json');
    stack.agents.push(
      startAgentChild({
        id: 'gpu-b',
        coordinatorUrl: stack.coordinator.agentUrl,
        natsUrl: stack.natsUrl,
        auth: { credentialFile: gpuCredentialFile, enrollmentToken: minted.token },
        env: { LOG_LEVEL: 'warn' },
      }),
    );
    const done = await stack.api.waitForJob(job.token, job.id, undefined, 120_000);
    expect(done.status, done.error_message).toBe('completed');
    expect((await attemptsOf(job.id)).map((a) => a.agentId)).toEqual(['gpu-b']);
    const gpu = await agentView('gpu-b');
    expect(gpu).toMatchObject({
      control: 'active',
      tags: ['gpu', 'pool-b'],
      work_kinds: expect.arrayContaining(['transcribe']),
      cpu_cores: expect.any(Number),
    });
    expect(JSON.parse(readFileSync(gpuCredentialFile, 'utf8'))).toMatchObject({ agent_id: 'gpu-b', token: expect.stringMatching(/^cra_/) });
    expect((await admin.enrollment.list.query()).find((e) => e.id === minted.id)).toMatchObject({ used_by: 'gpu-b' });
    await waitFor(() => seen.some((s) => s.some((a) => a.startsWith('gpu-b:'))), 10_000, { description: 'the subscription to show gpu-b' });
    sub.unsubscribe();
    expect(seen[0]).toContain('plain-agent:online');
  });

  it('drain under load: the running job finishes, nothing new is claimed until the agent is resumed', async () => {
    const b = await paidTranscribe();
    await waitFor(async () => (await attemptsOf(b.id)).length > 0, 60_000, { description: 'gpu-b to claim job B' });
    await admin.agents.drain.mutate({ agent_id: 'gpu-b' });
    const finished = await stack.api.waitForJob(b.token, b.id, undefined, 120_000);
    expect(finished.status, finished.error_message).toBe('completed');
    await waitFor(async () => (await agentView('gpu-b'))?.state === 'drained', 10_000, { description: 'gpu-b to show drained' });

    const c = await paidTranscribe();
    // Meanwhile the operator rotates its credential: a drained agent asks every few seconds, so it
    // fetches and saves a new one soon; the old one keeps working for the grace period.
    const before = JSON.parse(readFileSync(gpuCredentialFile, 'utf8')).token as string;
    await admin.agents.rotateCredential.mutate({ agent_id: 'gpu-b' });
    await waitFor(() => JSON.parse(readFileSync(gpuCredentialFile, 'utf8')).token !== before, 20_000, { description: 'gpu-b to rotate its credential' });
    expect(await attemptsOf(c.id)).toEqual([]);
    expect((await agentView('gpu-b'))?.rotate_requested).toBe(false);
    await admin.agents.resume.mutate({ agent_id: 'gpu-b' });
    const after = await stack.api.waitForJob(c.token, c.id, undefined, 120_000);
    expect(after.status, after.error_message).toBe('completed');
    expect((await attemptsOf(c.id)).map((a) => a.agentId)).toEqual(['gpu-b']);
    expect((await admin.agents.history.query({ agent_id: 'gpu-b' })).map((a) => [a.operator, a.action])).toEqual([
      ['admin', 'agent.resume'],
      ['admin', 'agent.rotate'],
      ['admin', 'agent.drain'],
      ['admin', 'agent.enroll'],
    ]);
  });

  it('cancelling a paid job refunds it on the chain, and the timeline says who did it', async () => {
    const before = await payer.balanceOf(payer.address);
    const d = await paidTranscribe(false);
    expect(await payer.balanceOf(payer.address)).toBeLessThan(before);
    const cancelled = await admin.jobs.cancel.mutate({ job_id: d.id, note: 'duplicate order' });
    expect(cancelled).toMatchObject({ status: 'failed', payment_status: 'refunded', error_code: 'operator_cancelled' });
    const seenByCaller = (await stack.api.call('GET', `/api/v1/jobs/${d.id}`, { token: d.token })).body;
    expect(seenByCaller).toMatchObject({ status: 'failed', payment_status: 'refunded' });
    expect(seenByCaller.error_message).toMatch(/cancelled by the service operator \(duplicate order\)/);
    const db = stack.coordinator.ctx.db;
    await waitFor(
      async () =>
        (
          await db
            .select()
            .from(ledgerEntries)
            .where(and(eq(ledgerEntries.jobId, d.id), eq(ledgerEntries.kind, 'refund')))
        )[0]?.state === 'done',
      60_000,
      { description: 'the refund to be sent' },
    );
    expect(await payer.balanceOf(payer.address)).toBe(before);
    const timeline = await admin.jobs.timeline.query({ job_id: d.id });
    expect(timeline.actions[0]).toMatchObject({ operator: 'admin', action: 'job.cancel', detail: { note: 'duplicate order' } });
    expect(timeline.ledger.map((l) => [l.kind, l.state])).toEqual([
      ['charge', 'done'],
      ['refund', 'done'],
    ]);
  });

  it('a revoked credential is refused at once; the API refuses a caller’s session token', async () => {
    const { token } = JSON.parse(readFileSync(gpuCredentialFile, 'utf8')) as { token: string };
    const claim = (t: string) =>
      fetch(`${stack.coordinator.agentUrl}${AGENT_ROUTES.claim}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: JSON.stringify({ v: 1, job_id: crypto.randomUUID(), agent_id: 'gpu-b' }),
      });
    expect((await claim(token)).status).toBe(200);
    // A credential cannot act as another agent.
    const other = await fetch(`${stack.coordinator.agentUrl}${AGENT_ROUTES.claim}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ v: 1, job_id: crypto.randomUUID(), agent_id: 'plain-agent' }),
    });
    expect(other.status).toBe(403);
    // The rotated-out credential and the current one: both end at once.
    expect(await admin.agents.revokeCredentials.mutate({ agent_id: 'gpu-b' })).toBe(2);
    expect((await claim(token)).status).toBe(401);

    await admin.agents.retire.mutate({ agent_id: 'plain-agent' });
    expect(await agentView('plain-agent')).toMatchObject({ state: 'retired', credentials: 0 });

    const caller = await stack.api.newSession();
    const refused = await fetch(`${stack.coordinator.url}/admin/trpc/agents.list`, { headers: { authorization: `Bearer ${caller}` } });
    expect(refused.status).toBe(401);
  });
});
