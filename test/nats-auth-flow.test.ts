// NATS with authentication on the real stack (docs/adr/0009): each agent connects as its own NATS
// user, signed by the coordinator for the key it holds. An agent pulls only its work kinds,
// publishes progress only under its own name, cannot publish a cancel (or any control message), and
// cannot read another agent's inbox; revoking it closes its open connection and refuses it after.
import { jetstream } from '@nats-io/jetstream';
import { createUser, type KeyPair } from '@nats-io/nkeys';
import { connect, jwtAuthenticator, type NatsConnection, type Status } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_ROUTES,
  type AgentCapabilities,
  cancelSubject,
  NatsCredentialResponse,
  PROGRESS_SUBJECT_WILDCARD,
  progressSubject,
  WORK_STREAM,
  workConsumerName,
  workSubject,
  type WorkKind,
} from '@cutroom/proto';
import { SYSTEM_OPERATOR } from '../coordinator/src/embedded/agent-children.ts';
import { revokeCredentials } from '../coordinator/src/operators/agent-control.ts';
import { waitFor } from './fixtures/index.ts';
import { startStack, type Stack } from './harness/stack.ts';

const caps = (agentId: string, kinds: WorkKind[]): AgentCapabilities => ({
  v: 1,
  agent_id: agentId,
  version: 'test',
  hostname: 'test-host',
  ffmpeg: { version: '5.1', encoders: ['libx264', 'aac'], nvenc: false },
  cuda: { available: false, devices: [] },
  whisper: { models: ['tiny.en'], device: 'cpu', compute_type: 'int8' },
  free_disk_bytes: 1e10,
  work_kinds: kinds,
  gpus: [],
  cpu_cores: 2,
});

interface TestAgent {
  id: string;
  token: string;
  key: KeyPair;
  granted: NatsCredentialResponse;
  nc: NatsConnection;
  /** Every status the connection reported (permission errors, revocation, disconnects). */
  statuses: string[];
}

describe('NATS authentication and scoping (agents act only as themselves)', () => {
  let stack: Stack;
  let service: NatsConnection;
  let a: TestAgent;
  let b: TestAgent;

  const post = async (path: string, token: string, body: unknown) => {
    const res = await fetch(`${stack.coordinator.agentUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const natsCredential = async (id: string, token: string, key: KeyPair) =>
    post(AGENT_ROUTES.natsCredential, token, { v: 1, agent_id: id, public_key: key.getPublicKey() });
  const connectAs = async (granted: NatsCredentialResponse, key: KeyPair, statuses: string[]) => {
    const nc = await connect({
      servers: stack.natsUrl,
      inboxPrefix: granted.inbox_prefix,
      authenticator: jwtAuthenticator(granted.jwt!, key.getSeed()),
      maxReconnectAttempts: 2,
      reconnectTimeWait: 200,
    });
    void (async () => {
      for await (const s of nc.status()) statuses.push(statusText(s));
    })();
    return nc;
  };
  const statusText = (s: Status) => `${s.type} ${'error' in s && s.error instanceof Error ? s.error.message : ''}`.trim();
  const enroll = async (id: string, kinds: WorkKind[]): Promise<TestAgent> => {
    const token = await stack.agentCredential(id);
    expect((await post(AGENT_ROUTES.register, token, caps(id, kinds))).status).toBe(200);
    const key = createUser();
    const res = await natsCredential(id, token, key);
    expect(res.status).toBe(200);
    const granted = NatsCredentialResponse.parse(res.body);
    expect(granted.jwt).toBeTruthy();
    const statuses: string[] = [];
    return { id, token, key, granted, nc: await connectAs(granted, key, statuses), statuses };
  };
  const settle = () => new Promise((r) => setTimeout(r, 300));

  beforeAll(async () => {
    stack = await startStack({ storage: 'local', agents: 0 });
    service = await stack.connectNats();
    a = await enroll('auth-agent-a', ['transcribe']);
    b = await enroll('auth-agent-b', ['cut']);
  }, 120_000);
  afterAll(async () => {
    for (const nc of [a?.nc, b?.nc, service]) await nc?.close().catch(() => undefined);
    await stack?.stop();
  });

  it('refuses a connection without credentials, and with a JWT but not the key it names', async () => {
    await expect(connect({ servers: stack.natsUrl, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization Violation/i);
    const stolen = createUser();
    await expect(
      connect({ servers: stack.natsUrl, authenticator: jwtAuthenticator(a.granted.jwt!, stolen.getSeed()), maxReconnectAttempts: 0 }),
    ).rejects.toThrow(/Authorization Violation/i);
  });

  it('lets an agent pull and ack only the work kinds it registered', async () => {
    const js = jetstream(service);
    await js.publish(workSubject('transcribe'), JSON.stringify({ probe: 'transcribe' }));
    await js.publish(workSubject('cut'), JSON.stringify({ probe: 'cut' }));
    const mine = await jetstream(a.nc).consumers.get(WORK_STREAM, workConsumerName('transcribe'));
    const msg = await mine.next({ expires: 3000 });
    expect(msg?.json()).toEqual({ probe: 'transcribe' });
    msg!.ack();
    await a.nc.flush();
    await expect(jetstream(a.nc).consumers.get(WORK_STREAM, workConsumerName('cut'))).rejects.toThrow(/Permissions Violation/);
    // The cut wake-up is still there for an agent that serves cuts.
    const theirs = await jetstream(b.nc).consumers.get(WORK_STREAM, workConsumerName('cut'));
    const cut = await theirs.next({ expires: 3000 });
    expect(cut?.json()).toEqual({ probe: 'cut' });
    cut!.ack();
  });

  it('refuses a cancel forged by an agent, and delivers the coordinator’s', async () => {
    const received: string[] = [];
    const attemptId = '00000000-0000-4000-8000-00000000c0de';
    b.nc.subscribe(cancelSubject(b.id, attemptId), { callback: (_e, m) => void received.push(m.subject) });
    await b.nc.flush();
    a.nc.publish(cancelSubject(b.id, attemptId));
    await a.nc.flush();
    await settle();
    expect(received).toEqual([]);
    expect(a.statuses.join('\n')).toMatch(/Permissions Violation for Publish to "cutroom\.control\.v2\.cancel\.auth-agent-b/);
    service.publish(cancelSubject(b.id, attemptId));
    await waitFor(() => received.length === 1, 5000, { description: "the coordinator's cancel to arrive" });
    // Nor may an agent listen for another agent's cancels, or read its inbox.
    a.nc.subscribe(cancelSubject(b.id, attemptId));
    a.nc.subscribe(`${b.granted.inbox_prefix}.>`);
    await a.nc.flush();
    await settle();
    expect(a.statuses.join('\n')).toMatch(/Permissions Violation for Subscription to "cutroom\.control\.v2\.cancel\.auth-agent-b/);
    expect(a.statuses.join('\n')).toMatch(/Permissions Violation for Subscription to "_INBOX_auth-agent-b\.>"/);
  });

  it('takes progress only under the agent’s own name', async () => {
    const seen: string[] = [];
    service.subscribe(PROGRESS_SUBJECT_WILDCARD, { callback: (_e, m) => void seen.push(m.subject) });
    await service.flush();
    const jobId = '00000000-0000-4000-8000-0000000000aa';
    a.nc.publish(progressSubject(b.id, jobId), '{}');
    a.nc.publish(progressSubject(a.id, jobId), '{}');
    await a.nc.flush();
    await waitFor(() => seen.length >= 1, 5000, { description: 'the progress event' });
    await settle();
    expect(seen).toEqual([progressSubject(a.id, jobId)]);
    expect(a.statuses.join('\n')).toMatch(/Permissions Violation for Publish to "cutroom\.progress\.v2\.auth-agent-b/);
  });

  it('closes a revoked agent’s open connection, refuses it after, and gives it no new credential', async () => {
    expect(a.nc.isClosed()).toBe(false);
    await revokeCredentials(stack.coordinator.ctx, SYSTEM_OPERATOR, a.id);
    await waitFor(() => a.statuses.some((s) => /Authentication Revoked/i.test(s)), 10_000, { description: 'the revoked connection to be told' });
    await waitFor(() => a.nc.isClosed(), 10_000, { description: 'the revoked connection to close' });
    // Neither pull nor publish: the same JWT and key cannot connect again.
    const again = await connect({ servers: stack.natsUrl, authenticator: jwtAuthenticator(a.granted.jwt!, a.key.getSeed()), maxReconnectAttempts: 0 }).catch(
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(Error);
    expect(String(again)).toMatch(/Authorization Violation|Authentication Revoked/i);
    // Its HTTP credential is revoked with it: no new JWT for this key or any other.
    expect((await natsCredential(a.id, a.token, createUser())).status).toBe(401);
    // The other agent is untouched.
    expect(b.nc.isClosed()).toBe(false);
    await b.nc.flush();
  });

  it('revokes an agent’s old key when it registers a new one (one live key per agent)', async () => {
    const fresh = createUser();
    const res = await natsCredential(b.id, b.token, fresh);
    expect(res.status).toBe(200);
    await waitFor(() => b.nc.isClosed(), 10_000, { description: "the old key's connection to close" });
    const statuses: string[] = [];
    const nc = await connectAs(NatsCredentialResponse.parse(res.body), fresh, statuses);
    await nc.flush();
    // The revoked key cannot come back, even with a JWT asked for again.
    expect((await natsCredential(b.id, b.token, b.key)).status).toBe(403);
    await nc.close();
  });
});
