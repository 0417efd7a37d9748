import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failAttempt } from '../agents/attempts.ts';
import { claimJob } from '../agents/claim.ts';
import { registerAgent } from '../agents/register.ts';
import { agents, jobAttempts, operatorActions } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { authenticateAgent } from '../agent-identity/agent-auth.ts';
import { requestRotation, revokeCredentials, setAgentState, setAgentTags } from './agent-control.ts';
import { listAgents } from './agent-state.ts';
import { blockedTypes, clearBlock } from './blocklist.ts';
import { enrollAgent, rotateCredential } from '../agent-identity/credentials.ts';
import { mintEnrollmentToken } from './enrollment.ts';
import { cancelJob, retryJob } from './job-control.ts';
import { listJobs, jobTimeline } from './job-queries.ts';

// One database per file; every test makes its own agents and jobs. ROUTING_TAGS: summarize needs `gpu`.
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ ROUTING_TAGS: 'summarize=gpu', BLOCKLIST_FAILURES: '3', AGENT_CREDENTIAL_GRACE_SECONDS: '60' });
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const alice = { id: '00000000-0000-4000-8000-00000000a11c', name: 'alice' };
const target = { coordinatorUrl: 'http://coordinator:8081', natsUrl: 'nats://nats:4222' };
const caps = (id: string, kinds: ('transcribe' | 'cut' | 'understand')[] = ['transcribe']) => ({
  v: 1 as const,
  agent_id: id,
  version: 'test',
  hostname: 'gpu-host',
  ffmpeg: { version: '5.1', encoders: ['libx264', 'h264_nvenc'], nvenc: true },
  cuda: { available: true, devices: ['NVIDIA L4'] },
  whisper: { models: ['tiny.en'], device: 'cuda' as const, compute_type: 'float16' },
  free_disk_bytes: 5e11,
  work_kinds: kinds,
  gpus: [{ name: 'NVIDIA L4', memory_mib: 23034 }],
  cpu_cores: 16,
});

/** An enrolled, registered agent, as a host that ran the enrollment command. */
async function enrolled(id: string, tags: string[] = [], kinds?: ('transcribe' | 'cut' | 'understand')[]) {
  const minted = await mintEnrollmentToken(ctx, alice, { agentId: id, tags }, target);
  const { token } = await enrollAgent(ctx, minted.token, { v: 1, agent_id: 'ignored-when-the-token-names-one', hostname: 'gpu-host' });
  await registerAgent(ctx, caps(id, kinds));
  return token;
}
const claim = (jobId: string, agentId: string) => claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
const actionsOn = (id: string) => ctx.db.select().from(operatorActions).where(eq(operatorActions.targetId, id));

describe('enrollment and credentials', () => {
  it('trades a one-use token for the agent’s own credential, shows the host command, and records who', async () => {
    const minted = await mintEnrollmentToken(ctx, alice, { tags: ['gpu', 'region-eu'] }, target);
    expect(minted.token).toMatch(/^cre_/);
    expect(minted.command).toBe(
      `AGENT_ID=$(hostname) COORDINATOR_URL=http://coordinator:8081 NATS_URL=nats://nats:4222 AGENT_ENROLLMENT_TOKEN=${minted.token} npm run agent`,
    );
    const enrolledAs = await enrollAgent(ctx, minted.token, { v: 1, agent_id: 'host-7', hostname: 'host-7.farm' });
    expect(enrolledAs).toMatchObject({ agent_id: 'host-7', tags: ['gpu', 'region-eu'] });
    expect(await authenticateAgent(ctx, enrolledAs.token)).toMatchObject({ agentId: 'host-7' });
    // One use only; an unknown token and a caller's session token authenticate nobody.
    await expect(enrollAgent(ctx, minted.token, { v: 1, agent_id: 'host-8', hostname: 'x' })).rejects.toThrow(/used, revoked or expired/);
    expect(await authenticateAgent(ctx, 'cra_not-a-real-one')).toBeNull();
    expect(await authenticateAgent(ctx, 'crs_a-session-token')).toBeNull();
    expect((await actionsOn('host-7')).map((a) => [a.operator, a.action])).toEqual([['alice', 'agent.enroll']]);
  });

  it('refuses an expired enrollment token', async () => {
    const minted = await mintEnrollmentToken(ctx, alice, {}, target);
    ctx.clock.advance(ctx.config.ENROLLMENT_TOKEN_TTL_HOURS * 3600_000 + 1);
    await expect(enrollAgent(ctx, minted.token, { v: 1, agent_id: 'late', hostname: 'x' })).rejects.toThrow(/expired/);
  });

  it('rotates: the new credential works at once, the old one until its grace ends', async () => {
    const old = await enrolled('rot-1');
    await requestRotation(ctx, alice, 'rot-1');
    expect((await registerAgent(ctx, caps('rot-1'))).control).toEqual({ state: 'active', rotate_credential: true });
    const identity = (await authenticateAgent(ctx, old))!;
    const next = await rotateCredential(ctx, 'rot-1', identity.credentialId);
    expect((await registerAgent(ctx, caps('rot-1'))).control.rotate_credential).toBe(false);
    expect(await authenticateAgent(ctx, next.token)).toMatchObject({ agentId: 'rot-1' });
    expect(await authenticateAgent(ctx, old)).toMatchObject({ agentId: 'rot-1' });
    ctx.clock.advance(61_000);
    expect(await authenticateAgent(ctx, old)).toBeNull();
    expect(await authenticateAgent(ctx, next.token)).toMatchObject({ agentId: 'rot-1' });
  });

  it('a token minted for no name cannot take an enrolled agent’s name: refused unspent, the live agent keeps its credential', async () => {
    const live = await enrolled('live-1');
    const generic = await mintEnrollmentToken(ctx, alice, {}, target);
    await expect(enrollAgent(ctx, generic.token, { v: 1, agent_id: 'live-1', hostname: 'attacker' })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/live-1 is already enrolled/),
    });
    expect(await authenticateAgent(ctx, live)).toMatchObject({ agentId: 'live-1' });
    // Unspent: the same token still enrolls a new name.
    expect(await enrollAgent(ctx, generic.token, { v: 1, agent_id: 'new-host-1', hostname: 'new-host-1' })).toMatchObject({ agent_id: 'new-host-1' });
    // A token the operator minted for the name replaces the credential (a host that lost its own).
    const replaced = await enrolled('live-1');
    expect(await authenticateAgent(ctx, live)).toBeNull();
    expect(await authenticateAgent(ctx, replaced)).toMatchObject({ agentId: 'live-1' });
  });

  it('revoked or retired: the credential stops working; a retired name cannot enroll again', async () => {
    const t1 = await enrolled('rev-1');
    expect(await revokeCredentials(ctx, alice, 'rev-1')).toBe(1);
    expect(await authenticateAgent(ctx, t1)).toBeNull();

    const t2 = await enrolled('ret-1');
    await setAgentState(ctx, alice, 'ret-1', 'retired');
    expect(await authenticateAgent(ctx, t2)).toBeNull();
    await expect(mintEnrollmentToken(ctx, alice, { agentId: 'ret-1' }, target)).rejects.toThrow(/retired/);
    const anyName = await mintEnrollmentToken(ctx, alice, {}, target);
    await expect(enrollAgent(ctx, anyName.token, { v: 1, agent_id: 'ret-1', hostname: 'x' })).rejects.toThrow(/retired/);
    await expect(setAgentState(ctx, alice, 'ret-1', 'active')).rejects.toThrow(/retired/);
    expect((await actionsOn('ret-1')).map((a) => a.action)).toEqual(['agent.enroll', 'agent.retire']);
  });
});

describe('drain, tags and the blocklist at the claim', () => {
  it('a drained agent is refused work and told so; resumed, it claims again', async () => {
    await enrolled('dr-1');
    await setAgentState(ctx, alice, 'dr-1', 'draining');
    const { jobId } = await queueTranscribeJob(ctx);
    expect(await claim(jobId, 'dr-1')).toMatchObject({ claimed: false, reason: 'this agent is draining', control: { state: 'draining' } });
    expect((await listAgents(ctx)).find((a) => a.id === 'dr-1')).toMatchObject({ state: 'drained', control: 'draining' });
    await setAgentState(ctx, alice, 'dr-1', 'active');
    expect((await claim(jobId, 'dr-1')).claimed).toBe(true);
    expect((await listAgents(ctx)).find((a) => a.id === 'dr-1')).toMatchObject({
      state: 'busy',
      current: { job_id: jobId, job_type: 'transcribe' },
      running: [{ job_id: jobId, job_type: 'transcribe' }],
    });
    // Slots by work kind: the same agent takes a second job; the view lists both, oldest first.
    ctx.clock.advance(1000);
    const second = await queueTranscribeJob(ctx);
    expect((await claim(second.jobId, 'dr-1')).claimed).toBe(true);
    expect((await listAgents(ctx)).find((a) => a.id === 'dr-1')).toMatchObject({
      current: { job_id: jobId },
      running: [{ job_id: jobId }, { job_id: second.jobId }],
    });
    // Drained while busy: the attempt goes on (the agent finishes it), the view says draining.
    await setAgentState(ctx, alice, 'dr-1', 'draining');
    expect((await listAgents(ctx)).find((a) => a.id === 'dr-1')).toMatchObject({ state: 'draining', current: { job_id: jobId } });
    expect((await actionsOn('dr-1')).map((a) => a.action)).toEqual(['agent.enroll', 'agent.drain', 'agent.resume', 'agent.drain']);
  });

  it('a job type that needs a tag waits for an agent that carries it', async () => {
    await enrolled('plain-1', [], ['understand']);
    await enrolled('gpu-1', ['gpu'], ['understand']);
    const { jobId } = await queueTranscribeJob(ctx);
    // A summarize job: same queue path, its own type (ROUTING_TAGS summarize=gpu).
    await ctx.db
      .update((await import('../db/schema.ts')).jobs)
      .set({ jobType: 'summarize' })
      .where(eq((await import('../db/schema.ts')).jobs.id, jobId));
    expect(await claim(jobId, 'plain-1')).toMatchObject({ claimed: false, reason: 'summarize needs an agent tagged gpu' });
    await setAgentTags(ctx, alice, 'plain-1', ['gpu', 'region-eu']);
    expect((await claim(jobId, 'plain-1')).claimed).toBe(true);
    await expect(setAgentTags(ctx, alice, 'plain-1', ['Not A Tag'])).rejects.toBeInstanceOf(AppError);
  });

  it('an agent that failed one job type N times is refused that type until an operator clears it', async () => {
    await enrolled('flaky-1');
    const failOnce = async (code: 'tool_failed' | 'media_invalid') => {
      const { jobId } = await queueTranscribeJob(ctx);
      const r = await claim(jobId, 'flaky-1');
      if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
      await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: 'flaky-1', code, message: 'boom' });
    };
    await failOnce('media_invalid'); // the caller's file: does not count
    await failOnce('tool_failed');
    await failOnce('tool_failed');
    expect(await blockedTypes(ctx, 'flaky-1')).toEqual([]);
    await failOnce('tool_failed');
    expect(await blockedTypes(ctx, 'flaky-1')).toEqual([{ agent_id: 'flaky-1', job_type: 'transcribe', failures: 3 }]);
    // Blocked while a healthy agent can take the type; alone (the other silent), the block yields.
    await enrolled('steady-1');
    const { jobId } = await queueTranscribeJob(ctx);
    expect(await claim(jobId, 'flaky-1')).toMatchObject({ claimed: false, reason: expect.stringMatching(/blocked for transcribe/) });
    expect((await listAgents(ctx)).find((a) => a.id === 'flaky-1')?.blocked).toEqual([{ job_type: 'transcribe', failures: 3 }]);
    ctx.clock.advance(91_000);
    await registerAgent(ctx, caps('flaky-1'));
    const alone = await queueTranscribeJob(ctx);
    expect((await claim(alone.jobId, 'flaky-1')).claimed).toBe(true);
    await registerAgent(ctx, caps('steady-1'));
    ctx.clock.advance(1000);
    await clearBlock(ctx, alice, 'flaky-1', 'transcribe');
    expect(await blockedTypes(ctx, 'flaky-1')).toEqual([]);
    expect((await claim(jobId, 'flaky-1')).claimed).toBe(true);
    expect((await actionsOn('flaky-1')).map((a) => a.action)).toContain('agent.unblock');
  });

  it('an agent that failed a job retries it when the only other agent is blocked for the type', async () => {
    ctx.clock.advance(91_000); // the earlier tests' agents are offline now
    await enrolled('once-1');
    await enrolled('blocked-1');
    for (let i = 0; i < 3; i++) {
      const { jobId } = await queueTranscribeJob(ctx);
      const r = await claim(jobId, 'blocked-1');
      if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
      await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: 'blocked-1', code: 'tool_failed', message: 'boom' });
    }
    expect(await blockedTypes(ctx, 'blocked-1')).toHaveLength(1);
    const { jobId } = await queueTranscribeJob(ctx);
    const first = await claim(jobId, 'once-1');
    if (!first.claimed) throw new Error('not claimed');
    await failAttempt(ctx, { v: 1, job_id: jobId, attempt_id: first.assignment.attempt_id, agent_id: 'once-1', code: 'tool_failed', message: 'boom' });
    // The job is back in the queue: blocked-1 refuses it (once-1 can take it), once-1 may retry it.
    expect(await claim(jobId, 'blocked-1')).toMatchObject({ claimed: false, reason: expect.stringMatching(/blocked for transcribe/) });
    expect((await claim(jobId, 'once-1')).claimed).toBe(true);
  });
});

describe('jobs: cancel, retry, filters and timeline', () => {
  it('cancels a running job: failed as operator_cancelled, its attempt ended, the agent told to stop', async () => {
    await enrolled('cx-1');
    const stopped: string[] = [];
    const cancelAttempt = ctx.cancelAttempt;
    ctx.cancelAttempt = (id) => stopped.push(id);
    try {
      const { jobId } = await queueTranscribeJob(ctx);
      const r = await claim(jobId, 'cx-1');
      if (!r.claimed) throw new Error('not claimed');
      const row = await cancelJob(ctx, alice, jobId, 'customer asked');
      expect(row).toMatchObject({ status: 'failed', errorCode: 'operator_cancelled', paymentStatus: 'refunded', currentAttemptId: null });
      expect(row.errorMessage).toMatch(/cancelled by the service operator \(customer asked\); the job was refunded/);
      expect(stopped).toEqual([r.assignment.attempt_id]);
      const [attempt] = await ctx.db.select().from(jobAttempts).where(eq(jobAttempts.id, r.assignment.attempt_id));
      expect(attempt).toMatchObject({ outcome: 'failed', errorCode: 'operator_cancelled' });
      await expect(cancelJob(ctx, alice, jobId, 'again')).rejects.toThrow(/already ended/);

      // Retry: back to the first stage, fresh attempts, a wake-up; the agent's cancelled attempt did not count against it.
      const retried = await retryJob(ctx, alice, jobId);
      expect(retried).toMatchObject({ status: 'extracting_audio', attemptCount: 0, errorCode: null, currentAttemptId: null });
      expect(await blockedTypes(ctx, 'cx-1')).toEqual([]);
      expect((await claim(jobId, 'cx-1')).claimed).toBe(true);
      await expect(retryJob(ctx, alice, jobId)).rejects.toThrow(/only a failed job/);

      const timeline = await jobTimeline(ctx, jobId);
      expect(timeline.actions.map((a) => [a.operator, a.action])).toEqual([
        ['alice', 'job.retry'],
        ['alice', 'job.cancel'],
      ]);
      expect(timeline.events.map((e) => e.to)).toContain('failed');
      expect(timeline.attempts.map((a) => a.agent_id)).toEqual(['cx-1', 'cx-1']);
      expect((await jobRow(ctx, jobId)).status).toBe('extracting_audio');
    } finally {
      ctx.cancelAttempt = cancelAttempt;
    }
  });

  it('lists jobs by status, type, agent and page', async () => {
    await enrolled('ls-1');
    const { jobId } = await queueTranscribeJob(ctx);
    await claim(jobId, 'ls-1');
    const byAgent = await listJobs(ctx, { agent_id: 'ls-1' });
    expect(byAgent.jobs.map((j) => j.id)).toEqual([jobId]);
    const failed = await listJobs(ctx, { status: ['failed'], job_type: ['transcribe'] });
    expect(failed.jobs.every((j) => j.status === 'failed')).toBe(true);
    const page1 = await listJobs(ctx, { limit: 2 });
    expect(page1.jobs).toHaveLength(2);
    const page2 = await listJobs(ctx, { limit: 2, before: page1.next! });
    expect(page2.jobs.map((j) => j.id)).not.toContain(page1.jobs[0]!.id);
    expect((await ctx.db.select().from(agents).where(eq(agents.id, 'ls-1'))).length).toBe(1);
  });
});
