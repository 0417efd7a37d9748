/**
 * `npm run bench`, last part (`npm run bench:load` alone): load and latency of the farm on the real
 * stack (test/harness/stack.ts: Postgres, nats-server with JetStream, MinIO, render-agents as child
 * processes), billing off. Four measurements, one run, one table at the end:
 *
 * 1. GET /api/v1/jobs/{id} (a completed transcribe with its output, the caller's Bearer token):
 *    autocannon for D s with C connections, req/s, p50 / p99 latency, non-2xx and errors, against
 *    a bare fastify route (same fastify, no hooks, no auth, no database) answering the very same
 *    JSON object, serialized per request: the ratio baseline, measured the same way in the same run.
 *    autocannon's latency histogram holds whole milliseconds (a bare route's p50 reads "< 1 ms"), so
 *    the latency ratio is on the mean latency, connections / req/s (Little's law, closed loop).
 * 2. Dispatch latency: one idle agent, N tiny transcribes (2 s of LibriVox speech) one after the
 *    other; from the moment POST /complete-upload has answered (Date.now() in this process) to the
 *    claim's `job_attempts.started_at` (the coordinator's clock; both read the same machine clock,
 *    milliseconds). The next job waits for the previous one to complete plus a random 0.3-1.3 s, so
 *    wake-ups arrive at random points of the agent's pull cycle. p50 / p99 / max.
 * 3. 200 concurrent callers, each its own session: POST /sessions, POST /jobs, GET upload-url, a
 *    presigned PUT of the 2 s WAV (64 KB) to MinIO, POST complete-upload, all at once. Every status
 *    is counted (goal: no 5xx), each call's p50 / p99, the coordinator's resident memory sampled
 *    every 100 ms (and its VmHWM, the peak over the whole run), then the wait until the 200 jobs are
 *    done on the 4 agents part 4 left running (at most BENCH_LOAD_DRAIN_SECONDS, default 150 s from
 *    the first call; otherwise the count done by then and the rate).
 * 4. Scaling: K transcribes of 10 s of speech submitted at once, with 1, 2 and 4 agents on this
 *    box; makespan from the first complete-upload to the last `completed_at`, jobs/min and the
 *    speed-up over 1 agent, with the cores the stack used and each agent's idle gap between two jobs
 *    of the backlog (attempt end → its next claim, job_attempts), which tell CPU saturation from
 *    agents waiting. With the CPU saturated, more agents on one box cannot help: add hosts.
 *
 * Honest numbers: the coordinator under test is a process of its own (coordinator/src/main.ts on
 * the stack's Postgres, NATS and MinIO: a replica, ADR 0008), and every caller and every agent talks
 * to it; its memory is its own (/proc/<pid>/status), and no load generator shares its event loop.
 * autocannon runs as a child process too (its bin, --json). The stack's in-process coordinator
 * stays up, idle but for its sweeper and outbox poll (a second replica). Everything shares the
 * same 2 cores: autocannon takes about one of them, which caps both sides alike.
 *
 * Rate limits: the defaults (per client IP per minute: 30 POST /sessions, 300 job creations and
 * payment calls; 60 per session) would answer 429 to most of 200 callers that all come from
 * 127.0.0.1 (170 of the 200 sessions); production callers come from many IPs. The bench raises
 * them to 100000 (as the test stack does) and counts any 429 it still sees.
 *
 * Usage: bench-load.ts; BENCH_LOAD_QUICK=1 for a short smoke run (3 s load, 8 dispatches, 40
 * callers, 4 jobs per scaling step). Env overrides: BENCH_LOAD_SECONDS, BENCH_LOAD_CONNECTIONS,
 * BENCH_LOAD_DISPATCHES, BENCH_LOAD_CALLERS, BENCH_LOAD_SCALE_JOBS, BENCH_LOAD_DRAIN_SECONDS.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inArray } from 'drizzle-orm';
import { execa, type ResultPromise } from 'execa';
import { agents as agentsTable, jobAttempts, jobs } from '../coordinator/src/db/schema.ts';
import { startAgentChild, type AgentChild } from '../coordinator/src/embedded/agent-children.ts';
import { freePort, waitFor } from '../test/fixtures/index.ts';
import { apiClient } from '../test/harness/api.ts';
import { concatWavs, librivoxUtterances } from '../test/harness/media.ts';
import { startStack } from '../test/harness/stack.ts';

const root = resolve(import.meta.dirname, '..');
const env = (name: string): string | undefined => process.env[name];
const quick = env('BENCH_LOAD_QUICK') === '1';
const envNum = (name: string, full: number, short: number) => Number(env(name) ?? (quick ? short : full));
const LOAD_SECONDS = envNum('BENCH_LOAD_SECONDS', 10, 3);
const CONNECTIONS = envNum('BENCH_LOAD_CONNECTIONS', 32, 16);
const DISPATCHES = envNum('BENCH_LOAD_DISPATCHES', 30, 8);
const CALLERS = envNum('BENCH_LOAD_CALLERS', 200, 40);
const SCALE_JOBS = envNum('BENCH_LOAD_SCALE_JOBS', 16, 4);
const DRAIN_SECONDS = envNum('BENCH_LOAD_DRAIN_SECONDS', 150, 60);
const SCALE_STEPS = [1, 2, 4];
/** Part 3 runs on the agents part 4 ended with. */
const CALLER_AGENTS = SCALE_STEPS.at(-1)!;
const RATE_LIMIT = '100000';
const AGENT_ENV = { LOG_LEVEL: 'warn', LLM_CANDIDATES: '0', LLM_SUMMARY_CALLS: '0' };
const cores = availableParallelism();

const work = mkdtempSync(join(tmpdir(), 'cutroom-bench-load-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started = performance.now();

// --- media: 2 s and 10 s of LibriVox speech, 16 kHz mono WAV ----------------------------------
const allSpeech = join(work, 'all.wav');
const tiny = join(work, 'tiny-2s.wav');
const clip10 = join(work, 'speech-10s.wav');
await concatWavs(
  librivoxUtterances().map((u) => u.file),
  allSpeech,
);
for (const [out, seconds] of [
  [tiny, 2],
  [clip10, 10],
] as const) {
  await execa('ffmpeg', ['-v', 'error', '-y', '-i', allSpeech, '-t', String(seconds), '-c:a', 'pcm_s16le', out]);
}
const tinyBytes = readFileSync(tiny).byteLength;

// --- helpers ------------------------------------------------------------------------------------
/** Nearest-rank percentile of `xs` (p in 0..100). */
function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const CLK_TCK = Number((await execa('getconf', ['CLK_TCK'])).stdout);
/** utime + stime of a process, seconds. */
function procCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}
/** Busy CPU seconds of the whole machine. */
function machineCpu(): number {
  const [, ...t] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return (t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!) / CLK_TCK;
}
/**
 * CPU seconds of this process and every descendant (Postgres, nats-server, MinIO, the coordinator,
 * the agents with their ffmpeg and Whisper children, autocannon): each live one's own time plus
 * what its reaped children used (cutime + cstime), so processes that came and went are counted.
 */
function treeCpu(): number {
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      cpu.set(Number(d), (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLK_TCK);
    } catch {
      // gone while listed
    }
  }
  let sum = 0;
  for (const [pid, c] of cpu) {
    let p = pid;
    while (p > 1 && p !== process.pid) p = parent.get(p) ?? 0;
    if (p === process.pid) sum += c;
  }
  return sum;
}
/** CPU marks to tell how much of the machine other work (not this bench's process tree) took. */
const cpuMark = () => ({ machine: machineCpu(), tree: treeCpu(), at: performance.now() });
const otherLoad: { part: string; share: number }[] = [];
/** Records and answers the share of the machine's cores other processes used since `m`. */
function otherSince(part: string, m: ReturnType<typeof cpuMark>): string {
  const now = cpuMark();
  const share = Math.max(0, now.machine - m.machine - (now.tree - m.tree)) / (((now.at - m.at) / 1000) * cores);
  otherLoad.push({ part, share });
  return share > 0.05 ? `   caution: other processes took ${(share * 100).toFixed(0)}% of the CPU during this part; not a quiet machine` : '';
}
/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function procMem(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? Number.NaN) / 1024;
}
const ms = (v: number) => (Number.isNaN(v) ? '—' : v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`);
/** autocannon's histogram holds whole milliseconds: 0 means under 1 ms. */
const acMs = (v: number) => (v === 0 ? '< 1 ms' : `${v} ms`);
const sec = (v: number) => `${v.toFixed(2)} s`;

// --- the stack, and the coordinator under test as a process of its own -------------------------
console.log(`bench-load${quick ? ' (quick)' : ''}: ${cores} cores; starting Postgres, nats-server, MinIO and the coordinator…`);
const stack = await startStack({
  agents: 0,
  env: { RATE_LIMIT_SESSIONS_PER_IP: RATE_LIMIT, RATE_LIMIT_PER_SESSION: RATE_LIMIT, RATE_LIMIT_PER_IP: RATE_LIMIT },
});
const db = stack.coordinator.ctx.db;
const children: ResultPromise[] = [];
const running: AgentChild[] = [];
let coordPid = 0;
let bare: ResultPromise | undefined;
try {
  const port = await freePort();
  const coord = execa(process.execPath, [join(root, 'coordinator/src/main.ts')], {
    env: { ...stack.coordinatorEnv, PORT: String(port), DATA_DIR: mkdtempSync(join(work, 'coordinator-')), LOG_LEVEL: 'warn' },
    stdout: 'inherit',
    stderr: 'inherit',
    reject: false,
  });
  children.push(coord);
  coordPid = coord.pid!;
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000, { description: 'the coordinator under test' });
  const api = apiClient(base);

  /** Starts agents until `n` run, all pointed at the coordinator under test; resolves once each announced itself. */
  async function agentsUpTo(n: number): Promise<void> {
    while (running.length > n) await running.pop()!.stop();
    const fresh: string[] = [];
    while (running.length < n) {
      const id = `bench-agent-${running.length + 1}`;
      const auth = await stack.agentAuth(id);
      running.push(startAgentChild({ id, coordinatorUrl: base, natsUrl: stack.natsUrl, auth, env: AGENT_ENV }));
      fresh.push(id);
    }
    if (fresh.length === 0) return;
    const since = new Date();
    await waitFor(
      async () => {
        const rows = await db.select({ id: agentsTable.id, seen: agentsTable.lastSeenAt }).from(agentsTable).where(inArray(agentsTable.id, fresh));
        return rows.length === fresh.length && rows.every((r) => r.seen >= since);
      },
      60_000,
      { description: `agents ${fresh.join(', ')} to announce themselves` },
    );
    await sleep(1500); // announced, then bound to the work consumers: let every pull open
  }

  /** Creates a transcribe job, uploads and completes it: returns the job id and when complete-upload answered (epoch ms). */
  async function submit(token: string, file: string): Promise<{ id: string; completedUploadAt: number }> {
    const id = await api.submitTranscribe(token, file, 'talk.wav', 'audio/wav');
    return { id, completedUploadAt: Date.now() };
  }

  /** Waits until every job is completed or failed (read from Postgres, not through the API under test). */
  async function waitDone(ids: string[], timeoutMs: number, showProgress = false) {
    const deadline = Date.now() + timeoutMs;
    let lastShown = 0;
    for (;;) {
      const rows = await db.select({ id: jobs.id, status: jobs.status, completedAt: jobs.completedAt }).from(jobs).where(inArray(jobs.id, ids));
      const done = rows.filter((r) => r.status === 'completed' || r.status === 'failed');
      if (showProgress && (process.stdout.isTTY || Date.now() - lastShown > 15_000)) {
        process.stdout.write(process.stdout.isTTY ? `\r   jobs done: ${done.length}/${ids.length}` : `   jobs done: ${done.length}/${ids.length}\n`);
        lastShown = Date.now();
      }
      if (done.length === ids.length || Date.now() > deadline) {
        if (showProgress && process.stdout.isTTY) process.stdout.write('\r');
        return { rows, done };
      }
      await sleep(250);
    }
  }

  // --- 1. GET /jobs/{id} vs a bare fastify route ------------------------------------------------
  await agentsUpTo(1);
  const readerToken = await api.newSession();
  const readJob = await submit(readerToken, tiny);
  const readJobView = await api.waitForJob(readerToken, readJob.id, undefined, 120_000);
  if (readJobView.status !== 'completed') throw new Error(`the job to read failed: ${readJobView.error_message}`);
  const jobPath = `/api/v1/jobs/${readJob.id}`;
  const sample = await fetch(`${base}${jobPath}`, { headers: { authorization: `Bearer ${readerToken}` } });
  const sampleBody = await sample.text();

  const bareScript = `
    import Fastify from 'fastify';
    const body = JSON.parse(process.env.BARE_BODY);
    const app = Fastify({ logger: false });
    app.get('/api/v1/jobs/:id', async () => body);
    await app.listen({ port: 0, host: '127.0.0.1' });
    console.log('PORT ' + app.server.address().port);`;
  bare = execa(process.execPath, ['--input-type=module', '-e', bareScript], { cwd: root, env: { BARE_BODY: sampleBody }, reject: false });
  children.push(bare);
  const barePort = await new Promise<number>((res, rej) => {
    bare!.stdout!.on('data', (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (m) res(Number(m[1]));
    });
    void bare!.then((r) => rej(new Error(`the bare fastify server exited: ${r.stderr}`)));
  });

  interface Cannon {
    label: string;
    rps: number;
    /** Mean latency by Little's law (connections / req/s): sub-millisecond, where autocannon's percentiles are whole ms. */
    mean: number;
    p50: number;
    p99: number;
    requests: number;
    non2xx: number;
    errors: number;
    bytes: number;
    /** Cores the server process used on average, and the whole machine. */
    serverCores: number;
    machineCores: number;
  }
  async function cannon(label: string, url: string, serverPid: number, seconds: number): Promise<Cannon> {
    const args = [join(root, 'node_modules/autocannon/autocannon.js'), '-c', String(CONNECTIONS), '-d', String(seconds), '--json'];
    args.push('-H', `authorization=Bearer ${readerToken}`, url);
    const cpu0 = procCpu(serverPid);
    const m0 = machineCpu();
    const t0 = performance.now();
    const r = await execa(process.execPath, args);
    const wall = (performance.now() - t0) / 1000;
    const j = JSON.parse(r.stdout);
    return {
      label,
      rps: j.requests.average,
      mean: (CONNECTIONS / j.requests.average) * 1000,
      p50: j.latency.p50,
      p99: j.latency.p99,
      requests: j.requests.total,
      non2xx: j.non2xx,
      errors: j.errors + j.timeouts,
      bytes: j.throughput.total / Math.max(1, j.requests.total),
      serverCores: (procCpu(serverPid) - cpu0) / wall,
      machineCores: (machineCpu() - m0) / wall,
    };
  }
  console.log(`\n1. GET ${jobPath}: ${sampleBody.length} B of JSON; autocannon -c ${CONNECTIONS} -d ${LOAD_SECONDS} (after a 2 s warm-up each)`);
  const bareUrl = `http://127.0.0.1:${barePort}${jobPath}`;
  const mark1 = cpuMark();
  await cannon('warm-up', `${base}${jobPath}`, coordPid, 2);
  const service = await cannon('service GET /jobs/{id}', `${base}${jobPath}`, coordPid, LOAD_SECONDS);
  await cannon('warm-up', bareUrl, bare.pid!, 2);
  const bareRun = await cannon('bare fastify route', bareUrl, bare.pid!, LOAD_SECONDS);
  bare.kill('SIGTERM');
  for (const c of [service, bareRun]) {
    console.log(
      `   ${c.label.padEnd(24)} ${c.rps.toFixed(0).padStart(6)} req/s  mean ${ms(c.mean)}  p50 ${acMs(c.p50)}  p99 ${acMs(c.p99)}  ${c.requests} requests, ${c.non2xx} non-2xx, ${c.errors} errors; ` +
        `server ${c.serverCores.toFixed(2)} cores, machine ${c.machineCores.toFixed(2)} of ${cores}`,
    );
  }
  if (service.non2xx + service.errors > 0) console.log('   caution: the service answered non-2xx or dropped connections under load');
  const caution1 = otherSince('GET /jobs/{id}', mark1);
  if (caution1) console.log(caution1);

  // --- 2. dispatch latency ------------------------------------------------------------------------
  console.log(`\n2. dispatch latency: ${DISPATCHES} tiny transcribes one at a time, 1 idle agent`);
  const dispatchToken = await api.newSession();
  const dispatch: { latency: number; completeUploadMs: number; run: number }[] = [];
  const mark2 = cpuMark();
  for (let i = 0; i < DISPATCHES; i++) {
    await sleep(300 + Math.random() * 1000);
    const t0 = Date.now();
    const { id, completedUploadAt } = await submit(dispatchToken, tiny);
    const { rows } = await waitDone([id], 120_000);
    const [attempt] = await db
      .select({ startedAt: jobAttempts.startedAt })
      .from(jobAttempts)
      .where(inArray(jobAttempts.jobId, [id]));
    if (!attempt || rows[0]?.status !== 'completed') throw new Error(`dispatch job ${id} ended ${rows[0]?.status}`);
    dispatch.push({
      latency: attempt.startedAt.getTime() - completedUploadAt,
      completeUploadMs: completedUploadAt - t0,
      run: rows[0].completedAt!.getTime() - attempt.startedAt.getTime(),
    });
    if (process.stdout.isTTY) process.stdout.write(`\r   ${i + 1}/${DISPATCHES}`);
  }
  const lat = dispatch.map((d) => d.latency);
  const dispatchRun = pct(
    dispatch.map((d) => d.run),
    50,
  );
  console.log(`\r   complete-upload → claim: p50 ${ms(pct(lat, 50))}, p99 ${ms(pct(lat, 99))}, max ${ms(Math.max(...lat))}, min ${ms(Math.min(...lat))}`);
  console.log('   (the outbox relay publishes after the commit; the agent holds a pull open on each of its 3 work kinds and claims over HTTP)');
  console.log(
    `   (create + upload + complete-upload took p50 ${ms(
      pct(
        dispatch.map((d) => d.completeUploadMs),
        50,
      ),
    )}; a 2 s job runs ${ms(dispatchRun)} claim → completed)`,
  );
  const caution2 = otherSince('dispatch', mark2);
  if (caution2) console.log(caution2);

  // --- 4. scaling 1 → 2 → 4 agents (before 3, which leaves a backlog) ----------------------------
  console.log(`\n4. scaling: ${SCALE_JOBS} transcribes of 10 s of speech, submitted at once`);
  const scale: { agents: number; makespan: number; perMin: number; failed: number; busy: number; gap: number; idle: number }[] = [];
  for (const n of SCALE_STEPS) {
    await agentsUpTo(n);
    const token = await api.newSession();
    const mark4 = cpuMark();
    const subs = await Promise.all(Array.from({ length: SCALE_JOBS }, () => submit(token, clip10)));
    const from = Math.min(...subs.map((s) => s.completedUploadAt));
    const { rows, done } = await waitDone(
      subs.map((s) => s.id),
      10 * 60_000,
    );
    if (done.length < rows.length) throw new Error(`scaling with ${n} agents: ${rows.length - done.length} jobs not done in 10 min`);
    const makespan = (Math.max(...rows.map((r) => r.completedAt!.getTime())) - from) / 1000;
    // Cores the bench's own processes used (the stack, agents, ffmpeg, Whisper), not other work on the box.
    const busy = (treeCpu() - mark4.tree) / ((performance.now() - mark4.at) / 1000);
    // Each agent's idle time between two jobs while the backlog was not empty: attempt end → its next claim.
    const attempts = await db
      .select({ agent: jobAttempts.agentId, startedAt: jobAttempts.startedAt, endedAt: jobAttempts.endedAt })
      .from(jobAttempts)
      .where(
        inArray(
          jobAttempts.jobId,
          subs.map((x) => x.id),
        ),
      );
    const gaps: number[] = [];
    for (const agent of new Set(attempts.map((a) => a.agent))) {
      const mine = attempts.filter((a) => a.agent === agent).sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
      for (let i = 1; i < mine.length; i++) gaps.push(mine[i]!.startedAt.getTime() - (mine[i - 1]!.endedAt?.getTime() ?? Number.NaN));
    }
    const idle = gaps.reduce((a, b) => a + b, 0) / 1000 / (makespan * n);
    const s = {
      agents: n,
      makespan,
      perMin: (SCALE_JOBS / makespan) * 60,
      failed: rows.filter((r) => r.status === 'failed').length,
      busy,
      gap: pct(gaps, 50),
      idle,
    };
    scale.push(s);
    console.log(
      `   ${n} agent(s): ${sec(makespan)}, ${s.perMin.toFixed(1)} jobs/min, speed-up ${(s.perMin / scale[0]!.perMin).toFixed(2)}x, CPU ${s.busy.toFixed(2)} of ${cores} cores; ` +
        `an agent idles p50 ${ms(s.gap)} between two jobs (${(s.idle * 100).toFixed(0)}% of its time)${s.failed ? `, ${s.failed} FAILED` : ''}`,
    );
    const caution4 = otherSince(`scaling, ${n} agent(s)`, mark4);
    if (caution4) console.log(caution4);
  }

  // --- 3. concurrent callers ------------------------------------------------------------------------
  await agentsUpTo(CALLER_AGENTS);
  console.log(
    `\n3. ${CALLERS} concurrent callers (session, job, upload-url, PUT ${(tinyBytes / 1000).toFixed(0)} KB, complete-upload), ${CALLER_AGENTS} agents`,
  );
  const statuses = new Map<string, Map<number, number>>();
  const latencies = new Map<string, number[]>();
  const tiny2 = readFileSync(tiny);
  /** One call's answer; bodies are read as the spec's JSON (session_token, job_id, upload_url). */
  type Answer = { status: number; body?: Record<string, string> };
  async function timed(step: string, f: () => Promise<Answer>): Promise<Answer> {
    const t0 = performance.now();
    let r: Answer;
    try {
      r = await f();
    } catch {
      r = { status: 0 }; // connection refused or reset
    }
    (latencies.get(step) ?? latencies.set(step, []).get(step)!).push(performance.now() - t0);
    const m = statuses.get(step) ?? statuses.set(step, new Map()).get(step)!;
    m.set(r.status, (m.get(r.status) ?? 0) + 1);
    return r;
  }
  async function caller(): Promise<string | null> {
    const s = await timed('POST /sessions', () => api.call('POST', '/api/v1/sessions'));
    if (s.status !== 201) return null;
    const token = s.body!['session_token']!;
    const c = await timed('POST /jobs', () =>
      api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' } }),
    );
    if (c.status !== 201) return null;
    const id = c.body!['job_id']!;
    const u = await timed('GET upload-url', () => api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token }));
    if (u.status !== 200) return null;
    const p = await timed('PUT (MinIO)', async () => {
      const res = await fetch(u.body!['upload_url']!, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: tiny2 });
      await res.arrayBuffer();
      return { status: res.status };
    });
    if (p.status !== 200) return null;
    const d = await timed('POST complete-upload', () => api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token }));
    return d.status === 200 ? id : null;
  }
  const rssBefore = procMem(coordPid, 'VmRSS');
  let rssPeakSampled = rssBefore;
  const sampler = setInterval(() => {
    rssPeakSampled = Math.max(rssPeakSampled, procMem(coordPid, 'VmRSS'));
  }, 100);
  const t3 = performance.now();
  const mark3 = cpuMark();
  const ids = await Promise.all(Array.from({ length: CALLERS }, caller));
  const submitSeconds = (performance.now() - t3) / 1000;
  const accepted = ids.filter((x): x is string => x !== null);
  const drain = await waitDone(accepted, DRAIN_SECONDS * 1000, true);
  const drainSeconds = (performance.now() - t3) / 1000;
  clearInterval(sampler);
  const caution3 = otherSince('concurrent callers', mark3);
  const rssAfter = procMem(coordPid, 'VmRSS');
  const rssHwm = procMem(coordPid, 'VmHWM');
  const counts = [...statuses.values()].flatMap((m) => [...m.entries()]);
  const count = (f: (s: number) => boolean) => counts.filter(([s]) => f(s)).reduce((n, [, k]) => n + k, 0);
  const fiveXX = count((s) => s >= 500);
  const tooMany = count((s) => s === 429);
  const dropped = count((s) => s === 0);
  const completed3 = drain.done.filter((r) => r.status === 'completed').length;
  const drainRate = (drain.done.length / drainSeconds) * 60;
  const drainText =
    drain.done.length === accepted.length
      ? `all done in ${sec(drainSeconds)} (${drainRate.toFixed(0)} jobs/min)`
      : `${drain.done.length} done in ${drainSeconds.toFixed(0)} s (${drainRate.toFixed(0)} jobs/min: all ${accepted.length} in ~${((accepted.length / drainRate) * 60).toFixed(0)} s at that rate)`;
  const failed3 = drain.done.length - completed3;
  for (const [step, m] of statuses) {
    const l = latencies.get(step)!;
    const sc = [...m.entries()].map(([s, k]) => `${s === 0 ? 'no answer' : s}×${k}`).join(' ');
    console.log(`   ${step.padEnd(22)} ${sc.padEnd(12)} p50 ${ms(pct(l, 50)).padStart(7)}  p99 ${ms(pct(l, 99)).padStart(7)}`);
  }
  console.log(
    `   ${accepted.length}/${CALLERS} submitted in ${sec(submitSeconds)}; ${completed3} completed${failed3 ? `, ${failed3} failed` : ''} ` +
      `(${drainText}); ` +
      `coordinator RSS ${rssBefore.toFixed(0)} MB before, peak ${rssPeakSampled.toFixed(0)} MB sampled / ${rssHwm.toFixed(0)} MB VmHWM (lifetime), ${rssAfter.toFixed(0)} MB after`,
  );
  if (fiveXX) console.log(`   FINDING: ${fiveXX} answers were 5xx`);
  if (tooMany) console.log(`   FINDING: ${tooMany} answers were 429 (rate limits) despite the raised limits`);
  if (dropped) console.log(`   FINDING: ${dropped} requests got no answer (connection refused or reset)`);
  if (caution3) console.log(caution3);

  // --- the table ------------------------------------------------------------------------------
  const l = dispatch.map((d) => d.latency);
  const rows: [string, string][] = [
    [
      `GET /jobs/{id}, ${CONNECTIONS} connections, ${LOAD_SECONDS} s`,
      `${service.rps.toFixed(0)} req/s, p50 ${acMs(service.p50)}, p99 ${acMs(service.p99)}, mean ${ms(service.mean)}, ${service.non2xx} non-2xx, ${service.errors} errors`,
    ],
    [
      `bare fastify route, same JSON (${sampleBody.length} B)`,
      `${bareRun.rps.toFixed(0)} req/s, p50 ${acMs(bareRun.p50)}, p99 ${acMs(bareRun.p99)}, mean ${ms(bareRun.mean)}`,
    ],
    ['service / bare', `throughput ${(service.rps / bareRun.rps).toFixed(3)}, mean latency ${(service.mean / bareRun.mean).toFixed(0)}x`],
    [`dispatch: complete-upload → agent claim (${DISPATCHES} jobs)`, `p50 ${ms(pct(l, 50))}, p99 ${ms(pct(l, 99))}, max ${ms(Math.max(...l))}`],
    [
      `${CALLERS} concurrent callers (5 calls each)`,
      `${fiveXX} × 5xx, ${tooMany} × 429, ${dropped} unanswered; ${accepted.length} jobs submitted in ${sec(submitSeconds)}`,
    ],
    [`  their ${accepted.length} jobs on ${CALLER_AGENTS} agents`, `${drainText}, ${completed3} completed, ${failed3} failed`],
    [
      '  coordinator RSS',
      `${rssBefore.toFixed(0)} MB before, peak ${rssPeakSampled.toFixed(0)} MB, ${rssAfter.toFixed(0)} MB after (VmHWM whole run ${rssHwm.toFixed(0)} MB)`,
    ],
    ...scale.map((s): [string, string] => [
      `${SCALE_JOBS} × 10 s transcribes, ${s.agents} agent(s)`,
      `${sec(s.makespan)}, ${s.perMin.toFixed(1)} jobs/min, ${(s.perMin / scale[0]!.perMin).toFixed(2)}x, CPU ${s.busy.toFixed(2)}/${cores}, idle between jobs p50 ${ms(s.gap)}`,
    ]),
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  console.log(`\nload and latency, ${cores} cores (${((performance.now() - started) / 1000).toFixed(0)} s in all):`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
  const busiest = otherLoad.reduce((a, b) => (b.share > a.share ? b : a));
  console.log(
    busiest.share > 0.05
      ? `  caution: other processes took up to ${(busiest.share * 100).toFixed(0)}% of the CPU (${busiest.part}): figures are from a busy machine`
      : `  other processes took at most ${(busiest.share * 100).toFixed(0)}% of the CPU in any part: a quiet machine`,
  );
  const last = scale.at(-1)!;
  const speedup = (last.perMin / scale[0]!.perMin).toFixed(2);
  console.log(
    `  scaling: ${speedup}x with ${last.agents} agents on ${cores} cores, CPU ${last.busy.toFixed(2)}/${cores}` +
      (last.busy > cores * 0.85 ? ' (near saturation: more agents on this box would add little; add hosts)' : ' (not saturated)') +
      `; with a backlog each agent idles p50 ${ms(scale[0]!.gap)} between two jobs; 1 agent used ${scale[0]!.busy.toFixed(2)} of ${cores} cores ` +
      '(one job at a time: its single-threaded stages leave the other core idle)',
  );
} catch (err) {
  console.error(`\nbench-load failed; its files stay in ${work}`);
  throw err;
} finally {
  await Promise.all(running.map((a) => a.stop()));
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([Promise.all(children), sleep(10_000)]);
  await stack.stop();
}
rmSync(work, { recursive: true, force: true });
