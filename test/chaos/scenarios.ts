// Fault-injection scenarios on the real stack. Each `run` submits paid jobs, injects one fault at a
// chosen moment and answers the job ids to check (plus whether the fault hit the moment it aimed at).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { execa, type ResultPromise } from 'execa';
import { agents, jobAttempts, jobs } from '../../coordinator/src/db/schema.ts';
import { ledgerEntries } from '../../coordinator/src/db/payments-schema.ts';
import { startAgentChild, type AgentChild } from '../../coordinator/src/embedded/agent-children.ts';
import { freePort, serviceControl, waitFor, type ServiceControl } from '../fixtures/index.ts';
import type { chainPayer } from '../harness/chain-payer.ts';
import type { Stack } from '../harness/stack.ts';

export interface ChaosContext {
  stack: Stack;
  payer: ReturnType<typeof chainPayer>;
  /** a few seconds of speech (WAV) */
  speech: string;
  /** bytes that are no media at all (a user-blamed failure: refunded) */
  corrupt: string;
  leaseMs: number;
  /** the agents of the stack's coordinator that are alive now (replaced as scenarios kill them) */
  live: AgentChild[];
  nextAgentId(): string;
  log(msg: string): void;
  /** processes to kill when the suite ends */
  children: ResultPromise[];
}

export interface RunOutcome {
  jobIds: string[];
  /** false when the job ended before the fault could be injected where the scenario aims */
  hit: boolean;
  /** run once every job is final: problems where a fenced-off (stale) caller's work was accepted */
  staleCheck?: () => Promise<string[]>;
}

export interface Scenario {
  name: string;
  description: string;
  run(ctx: ChaosContext): Promise<RunOutcome>;
}

/** Retries `step` while it throws (a client riding out an outage) until `withinMs` has passed. */
async function persist<T>(step: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * A paid transcribe job as a stock MPP client makes one, through `base` (a coordinator's URL),
 * uploaded and completed. With `retryMs`, each step is retried while it fails (network errors,
 * 5xx) as a patient client would; a paid creation that failed is retried too, so a payment taken
 * for a creation that answered an error would show as a chain/ledger mismatch.
 */
export async function paidTranscribe(ctx: ChaosContext, base: string, file: string, retryMs = 0): Promise<{ id: string; token: string }> {
  const created = await persist(async () => {
    const res = await ctx.payer.mppx.fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' }),
    });
    if (res.status !== 201) throw new Error(`paid POST /jobs → ${res.status} ${await res.text()}`);
    return (await res.json()) as { job_id: string; session_token: string };
  }, retryMs);
  const headers = { authorization: `Bearer ${created.session_token}` };
  await persist(async () => {
    const r = await fetch(`${base}/api/v1/jobs/${created.job_id}/upload-url`, { headers });
    if (!r.ok) throw new Error(`GET upload-url → ${r.status}`);
    const up = (await r.json()) as { upload_url: string };
    const put = await fetch(up.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(file) });
    if (!put.ok) throw new Error(`PUT upload → ${put.status}`);
    const done = await fetch(`${base}/api/v1/jobs/${created.job_id}/complete-upload`, { method: 'POST', headers });
    if (done.status !== 200) throw new Error(`complete-upload → ${done.status} ${await done.text()}`);
  }, retryMs);
  return { id: created.job_id, token: created.session_token };
}

const attemptsOf = (ctx: ChaosContext, id: string) => ctx.stack.coordinator.ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id));
const jobRow = async (ctx: ChaosContext, id: string) => (await ctx.stack.coordinator.ctx.db.select().from(jobs).where(eq(jobs.id, id)))[0];

/** Waits for an open attempt on the job; answers it, or undefined if the job ended first. */
async function openAttempt(ctx: ChaosContext, id: string, timeoutMs = 90_000) {
  let found: Awaited<ReturnType<typeof attemptsOf>>[number] | undefined;
  let ended = false;
  await waitFor(
    async () => {
      found = (await attemptsOf(ctx, id)).find((a) => a.outcome === null);
      ended = ['completed', 'failed'].includes((await jobRow(ctx, id))?.status ?? '');
      return found !== undefined || ended;
    },
    timeoutMs,
    { description: `an agent to claim job ${id}`, intervalMs: 100 },
  );
  return ended && !found ? undefined : found;
}

/** Starts an agent on the stack's coordinator and adds it to the live pool. */
async function freshAgent(ctx: ChaosContext): Promise<AgentChild> {
  const a = await ctx.stack.startAgent(ctx.nextAgentId());
  ctx.live.push(a);
  return a;
}

function takeLive(ctx: ChaosContext, agentId: string): AgentChild | undefined {
  const i = ctx.live.findIndex((a) => a.id === agentId);
  return i >= 0 ? ctx.live.splice(i, 1)[0] : undefined;
}

/** A coordinator replica as its own process (coordinator/src/main.ts) on the stack's Postgres, NATS and S3. */
async function replica(ctx: ChaosContext, name: string, port?: number) {
  port ??= await freePort();
  const child = execa('bash', ['scripts/run-node.sh', 'coordinator/src/main.ts'], {
    env: { ...ctx.stack.coordinatorEnv, PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), `cutroom-chaos-${name}-`)), LOG_LEVEL: 'error' },
    reject: false,
    all: true,
  });
  ctx.children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/health`).catch(() => null))?.ok === true, 90_000, {
    description: `replica ${name} to start`,
    intervalMs: 200,
  });
  return { child, url };
}

/** An enrolled agent that reports to the coordinator at `url` (a replica), pulling from the stack's NATS. */
async function agentOn(ctx: ChaosContext, url: string): Promise<{ agentId: string; child: AgentChild }> {
  const agentId = ctx.nextAgentId();
  const child = startAgentChild({
    id: agentId,
    coordinatorUrl: url,
    natsUrl: ctx.stack.natsUrl,
    auth: await ctx.stack.agentAuth(agentId),
    env: { LOG_LEVEL: 'error', LLM_CANDIDATES: '0', LLM_SUMMARY_CALLS: '0' },
  });
  // Registered (its row written), then a moment to bind its consumers: from then on it races the
  // stack's agents for every wake-up.
  const db = ctx.stack.coordinator.ctx.db;
  await waitFor(async () => (await db.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId))).length > 0, 90_000, {
    description: `agent ${agentId} to register with ${url}`,
    intervalMs: 100,
  });
  await new Promise((r) => setTimeout(r, 500));
  return { agentId, child };
}

async function listKeys(ctx: ChaosContext, prefix: string): Promise<string[]> {
  const s3 = ctx.stack.s3!;
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key!);
  } finally {
    client.destroy();
  }
}

async function sigkill(child: ResultPromise): Promise<void> {
  child.kill('SIGKILL');
  await child.catch(() => undefined);
}

/**
 * A service restart (or outage) while a job is held by an agent, with a second job submitted while
 * the service is down where the API can still take it (`submitDuring`).
 */
function serviceOutage(
  name: string,
  description: string,
  control: (ctx: ChaosContext) => ServiceControl | undefined,
  downMs: number,
  submitDuring: boolean,
): Scenario {
  return {
    name,
    description,
    async run(ctx) {
      const svc = control(ctx);
      if (!svc) throw new Error(`${name}: the fixture is container-backed (no in-place restart): skipped`);
      const first = await paidTranscribe(ctx, ctx.stack.coordinator.url, ctx.speech);
      const attempt = await openAttempt(ctx, first.id);
      const ids = [first.id];
      const restarting = svc.restart(downMs);
      let during: Promise<{ id: string } | undefined> = Promise.resolve(undefined);
      if (submitDuring) {
        // Submitted while the service is away, by a client that retries each step for up to a minute.
        await new Promise((r) => setTimeout(r, Math.min(1000, downMs / 2)));
        during = paidTranscribe(ctx, ctx.stack.coordinator.url, ctx.speech, 60_000).catch((err: Error) => {
          ctx.log(`${name}: a job submitted during the outage could not be made: ${err.message.slice(0, 300)}`);
          return undefined;
        });
      }
      await restarting;
      const second = await during;
      if (second) ids.push(second.id);
      ctx.log(`${name}: back up (job ${first.id} was held: ${attempt !== undefined})`);
      return { jobIds: ids, hit: attempt !== undefined };
    },
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'agent-kill9',
    description: 'kill -9 the render-agent holding a job mid-run; a replacement agent joins',
    async run(ctx) {
      const job = await paidTranscribe(ctx, ctx.stack.coordinator.url, ctx.speech);
      const attempt = await openAttempt(ctx, job.id);
      const victim = attempt && takeLive(ctx, attempt.agentId);
      if (victim) {
        await sigkill(victim.process);
        ctx.log(`killed ${victim.id} holding ${job.id}`);
      }
      await freshAgent(ctx);
      return { jobIds: [job.id], hit: victim !== undefined };
    },
  },
  {
    name: 'agent-sigstop',
    description: 'SIGSTOP the agent holding a job until its lease is swept, then SIGCONT (its late calls must be refused as stale)',
    async run(ctx) {
      const job = await paidTranscribe(ctx, ctx.stack.coordinator.url, ctx.speech);
      const attempt = await openAttempt(ctx, job.id);
      const victim = attempt && ctx.live.find((a) => a.id === attempt.agentId);
      if (!attempt || !victim) return { jobIds: [job.id], hit: false };
      victim.process.kill('SIGSTOP');
      let swept = false;
      try {
        // Past the lease: the sweeper ends the attempt; another agent retakes the job meanwhile.
        await waitFor(async () => (await attemptsOf(ctx, job.id)).find((a) => a.id === attempt.id)?.outcome != null, ctx.leaseMs * 6 + 30_000, {
          description: 'the stopped agent’s attempt to be swept',
          intervalMs: 200,
        });
        swept = (await attemptsOf(ctx, job.id)).find((a) => a.id === attempt.id)?.outcome === 'lease_expired';
      } finally {
        victim.process.kill('SIGCONT');
      }
      ctx.log(`stopped ${victim.id} holding ${job.id}; attempt swept: ${swept}`);
      // Thawed, the agent carries on with its old attempt: every call it makes must be refused as
      // stale (its attempt stays lease_expired, nothing lands in its output folder).
      const staleCheck = async () => {
        const problems: string[] = [];
        const mine = (await attemptsOf(ctx, job.id)).find((a) => a.id === attempt.id);
        if (swept && mine?.outcome !== 'lease_expired') problems.push(`the swept attempt ${attempt.id} ended as ${mine?.outcome}`);
        const objects = await listKeys(ctx, `jobs/${job.id}/outputs/${attempt.id}/`);
        if (objects.length) problems.push(`the stale attempt wrote ${objects.join(', ')}`);
        return problems;
      };
      return { jobIds: [job.id], hit: swept, staleCheck };
    },
  },
  {
    name: 'replica-kill9',
    description: 'a second coordinator process takes the paid upload and serves an agent holding the job; kill -9 it',
    async run(ctx) {
      const b = await replica(ctx, 'b');
      const { agentId, child: onB } = await agentOn(ctx, b.url);
      // Any agent may take a wake-up: submit through B until B's agent holds one (a few tries).
      const jobsOnB: string[] = [];
      let hit = false;
      for (let i = 0; i < 6 && !hit; i++) {
        const job = await paidTranscribe(ctx, b.url, ctx.speech);
        jobsOnB.push(job.id);
        const attempt = await openAttempt(ctx, job.id);
        hit = attempt?.agentId === agentId;
      }
      await sigkill(b.child);
      ctx.log(`killed replica b (its agent held a job: ${hit})`);
      // B's agent has lost its coordinator: stop it (as if its host went with it).
      await sigkill(onB.process);
      return { jobIds: jobsOnB, hit };
    },
  },
  {
    name: 'upload-kill9',
    description:
      'kill -9 the coordinator replica while a paid job’s complete-upload is in flight; the client, getting no answer, repeats it on the other coordinator',
    async run(ctx) {
      const b = await replica(ctx, 'u');
      const a = ctx.stack.coordinator.url;
      const created = await (
        await ctx.payer.mppx.fetch(`${b.url}/api/v1/jobs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' }),
        })
      ).json();
      const { job_id: id, session_token: token } = created as { job_id: string; session_token: string };
      const headers = { authorization: `Bearer ${token}` };
      const up = (await (await fetch(`${b.url}/api/v1/jobs/${id}/upload-url`, { headers })).json()) as { upload_url: string };
      const put = await fetch(up.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(ctx.speech) });
      if (!put.ok) throw new Error(`PUT upload → ${put.status}`);
      const inFlight = fetch(`${b.url}/api/v1/jobs/${id}/complete-upload`, { method: 'POST', headers }).then(
        (r) => r.status,
        () => 'no answer' as const,
      );
      // A few ms in: before, during or just after the transaction that queues the job.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 15)));
      await sigkill(b.child);
      const answer = await inFlight;
      if (answer !== 200) {
        // The client did not hear back: it repeats the call (any coordinator serves it).
        const again = await persist(async () => {
          const r = await fetch(`${a}/api/v1/jobs/${id}/complete-upload`, { method: 'POST', headers });
          if (r.status >= 500) throw new Error(`complete-upload → ${r.status}`);
          return r.status;
        }, 30_000);
        ctx.log(`upload-kill9: killed replica u mid complete-upload of ${id} (${answer}); repeated on the other: ${again}`);
        if (again !== 200) throw new Error(`the repeated complete-upload answered ${again}`);
      } else ctx.log(`upload-kill9: replica u answered complete-upload of ${id} before it died`);
      return { jobIds: [id], hit: answer !== 200 };
    },
  },
  {
    name: 'ingest-kill9',
    description:
      'kill -9 the coordinator replica an agent reports to once the attempt’s outputs are uploaded (its complete in flight); a supervisor restarts it on the same port',
    async run(ctx) {
      const b = await replica(ctx, 'i');
      const port = Number(new URL(b.url).port);
      const { agentId, child: onB } = await agentOn(ctx, b.url);
      const ids: string[] = [];
      let hit = false;
      let restarted: Awaited<ReturnType<typeof replica>> | undefined;
      try {
        // Any agent may take a wake-up: submit until B's agent holds one (a few tries).
        for (let i = 0; i < 6 && !hit; i++) {
          const job = await paidTranscribe(ctx, b.url, ctx.speech);
          ids.push(job.id);
          const attempt = await openAttempt(ctx, job.id);
          if (attempt?.agentId !== agentId) continue;
          // The agent uploads every output, then calls complete: kill B as the outputs land.
          let landed = false;
          await waitFor(
            async () => {
              landed = (await listKeys(ctx, `jobs/${job.id}/outputs/${attempt.id}/`)).length >= 2;
              return landed || (await attemptsOf(ctx, job.id)).find((a) => a.id === attempt.id)?.outcome != null;
            },
            90_000,
            { description: `the outputs of attempt ${attempt.id}`, intervalMs: 25 },
          );
          if (!landed) continue;
          await sigkill(b.child);
          hit = true;
          ctx.log(`killed replica i as attempt ${attempt.id} of ${job.id} reported (job ${(await jobRow(ctx, job.id))?.status})`);
          restarted = await replica(ctx, 'i', port);
        }
      } finally {
        // The agent rides out its coordinator's restart (its complete is retried); then it leaves.
        if (restarted) {
          await new Promise((r) => setTimeout(r, ctx.leaseMs * 2));
          const last = ids[ids.length - 1]!;
          const outcomes = (await attemptsOf(ctx, last)).map((a) => `${a.agentId} ${a.outcome ?? 'open'}`);
          ctx.log(`ingest-kill9: after the restart, attempts of ${last}: ${outcomes.join(', ')}`);
        }
        await sigkill(onB.process);
        if (restarted) await sigkill(restarted.child);
        else await sigkill(b.child);
      }
      return { jobIds: ids, hit };
    },
  },
  {
    name: 'refund-kill9',
    description: 'a paid job with corrupt media fails (user-blamed, refunded); kill -9 a coordinator replica while its refund is pending or being sent',
    async run(ctx) {
      const b = await replica(ctx, 'r');
      const job = await paidTranscribe(ctx, b.url, ctx.corrupt);
      const db = ctx.stack.coordinator.ctx.db;
      let state: string | undefined;
      await waitFor(
        async () => {
          state = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, job.id))).find((l) => l.kind === 'refund')?.state;
          return state !== undefined;
        },
        90_000,
        { description: `a refund row for ${job.id}`, intervalMs: 50 },
      );
      await sigkill(b.child);
      ctx.log(`killed replica r with the refund of ${job.id} ${state}`);
      return { jobIds: [job.id], hit: state === 'pending' || state === 'sending' };
    },
  },
  serviceOutage(
    'nats-restart',
    'restart nats-server (down 2 s, same port and JetStream store) while an agent holds a job; a second job is submitted meanwhile',
    (ctx) => serviceControl(ctx.stack.natsUrl),
    2000,
    true,
  ),
  serviceOutage(
    'postgres-restart',
    'restart Postgres (down 2 s, same port and data) while an agent holds a job; a second job is paid for and submitted meanwhile',
    (ctx) => serviceControl(ctx.stack.coordinatorEnv.DATABASE_URL!),
    2000,
    true,
  ),
  serviceOutage(
    's3-outage',
    'take MinIO away for 8 s (same port and data after) while an agent holds a job; a second job is submitted meanwhile',
    (ctx) => serviceControl(ctx.stack.s3!.endpoint),
    8000,
    true,
  ),
];
