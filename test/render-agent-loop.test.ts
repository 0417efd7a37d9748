import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_ROUTES, AgentCapabilities, cancelSubject, CompleteRequest, FailRequest, PROGRESS_SUBJECT_WILDCARD, ProgressEvent,
  WORK_STREAM, WORK_SUBJECT_PREFIX, workConsumerName, workSubject, type Assignment,
} from '@cutroom/proto';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { loadAgentConfig, startAgent, type AgentHandle } from '@cutroom/render-agent';
import { freePort, startNats, waitFor, type NatsFixture } from './fixtures/index.ts';
import { concatWavs, LIBRIVOX_DIR } from './harness/media.ts';

/**
 * The agent's whole loop on a real nats-server with JetStream, against a stand-in coordinator
 * that speaks the proto routes and serves "presigned" blob URLs. The real coordinator's side
 * is covered by the stack suites; this one pins the agent's half of the protocol.
 */
interface FakeJob { source: string; leaseMs: number; cancelOnHeartbeat?: boolean; claimedBy?: string; attemptId?: string }
const calls: { route: string; body: Record<string, unknown> }[] = [];
const jobs = new Map<string, FakeJob>();
const blobs = new Map<string, { body: Buffer; contentType: string | undefined }>();
let coordinatorUrl: string;
let server: http.Server;
let nats: NatsFixture;
let nc: NatsConnection;
let agent: AgentHandle;
let workDir: string;
const progress: ProgressEvent[] = [];
const WAV = path.join(LIBRIVOX_DIR, 'sense_and_sensibility_01_austen_64kb-0870.wav');

function assignmentFor(jobId: string, job: FakeJob): Assignment {
  const blob = (name: string) => `${coordinatorUrl}/blob/${jobId}/${name}?X-Signature=secret`;
  return {
    v: 1, job_id: jobId, attempt_id: job.attemptId!, job_type: 'transcribe', kind: 'transcribe', lease_ms: job.leaseMs,
    source: { get_url: blob('source'), content_type: 'application/octet-stream', size: fs.statSync(job.source).size },
    outputs: {
      transcript_srt: { put_url: blob('transcript_srt'), content_type: 'application/x-subrip', key: `jobs/${jobId}/outputs/transcript_srt` },
      transcript_words: { put_url: blob('transcript_words'), content_type: 'application/json', key: `jobs/${jobId}/outputs/transcript_words` },
    },
    params: { language: null, model: 'tiny.en' },
  };
}

function route(req: http.IncomingMessage, body: Buffer): { status: number; json?: unknown; file?: string } {
  const url = new URL(req.url ?? '/', 'http://x');
  const blob = /^\/blob\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (blob) {
    if (url.searchParams.get('X-Signature') !== 'secret') return { status: 403 };
    if (req.method === 'GET') return { status: 200, file: jobs.get(blob[1]!)!.source };
    blobs.set(`${blob[1]}/${blob[2]}`, { body, contentType: req.headers['content-type'] });
    return { status: 200 };
  }
  if (req.headers.authorization !== 'Bearer agent-token') return { status: 401 };
  const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  calls.push({ route: url.pathname, body: json });
  const job = jobs.get(String(json.job_id));
  switch (url.pathname) {
    case AGENT_ROUTES.register:
      return { status: 200, json: {} };
    case AGENT_ROUTES.claim:
      if (!job || job.claimedBy) return { status: 200, json: { v: 1, claimed: false, reason: 'already claimed' } };
      job.claimedBy = String(json.agent_id);
      job.attemptId = randomUUID();
      return { status: 200, json: { v: 1, claimed: true, assignment: assignmentFor(String(json.job_id), job) } };
    case AGENT_ROUTES.heartbeat:
      return { status: 200, json: { v: 1, lease_expires_at: new Date(Date.now() + 5000).toISOString(), cancel: job?.cancelOnHeartbeat ?? false } };
    default:
      return { status: 200, json: {} };
  }
}

const callsTo = (r: string, jobId: string) => calls.filter((c) => c.route === r && c.body.job_id === jobId);

async function publishWakeup(jobId: string): Promise<void> {
  await jetstream(nc).publish(workSubject('transcribe'), JSON.stringify({ v: 1, job_id: jobId, kind: 'transcribe', enqueued_at: new Date().toISOString() }));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = route(req, Buffer.concat(chunks));
      if (r.file) fs.createReadStream(r.file).pipe(res.writeHead(r.status));
      else res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.json ?? {}));
    });
  });
  const port = await freePort();
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  coordinatorUrl = `http://127.0.0.1:${port}`;

  nats = await startNats();
  nc = await connect({ servers: nats.url });
  nc.subscribe(PROGRESS_SUBJECT_WILDCARD, { callback: (_e, m) => void progress.push(ProgressEvent.parse(m.json())) });

  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'render-agent-loop-'));
  const config = loadAgentConfig({ COORDINATOR_URL: coordinatorUrl, AGENT_TOKEN: 'agent-token', NATS_URL: nats.url, AGENT_ID: 'loop-agent', WORK_DIR: workDir });
  // Started before the stream exists: the agent must wait for the coordinator to create it.
  agent = await startAgent(config, { logger: pino({ level: 'fatal' }) });

  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: WORK_STREAM, subjects: [`${WORK_SUBJECT_PREFIX}.>`], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
  await jsm.consumers.add(WORK_STREAM, { durable_name: workConsumerName('transcribe'), filter_subject: workSubject('transcribe'), ack_policy: AckPolicy.Explicit, ack_wait: nanos(60_000) });
  await agent.ready;
});

afterAll(async () => {
  await agent?.stop();
  await nc?.close();
  await nats?.stop();
  await new Promise((ok) => server?.close(ok));
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('render-agent loop against NATS and a stand-in coordinator', () => {
  it('announced real capabilities', () => {
    const caps = AgentCapabilities.parse(calls.find((c) => c.route === AGENT_ROUTES.register)!.body);
    expect(caps).toMatchObject({ agent_id: 'loop-agent', work_kinds: ['transcribe'], whisper: { device: 'cpu', compute_type: 'int8' } });
    expect(caps.whisper.models).toContain('tiny.en');
    expect(caps.ffmpeg.encoders).toContain('libx264');
    expect(caps.ffmpeg.nvenc).toBe(false);
    expect(caps.free_disk_bytes).toBeGreaterThan(0);
  });

  it('claims a wake-up, transcribes, uploads both outputs and completes', async () => {
    const jobId = randomUUID();
    jobs.set(jobId, { source: WAV, leaseMs: 1000 });
    await publishWakeup(jobId);
    await waitFor(() => callsTo(AGENT_ROUTES.complete, jobId).length > 0, 60_000, { description: 'complete' });

    const complete = CompleteRequest.parse(callsTo(AGENT_ROUTES.complete, jobId)[0]!.body);
    expect(complete).toMatchObject({ attempt_id: jobs.get(jobId)!.attemptId, agent_id: 'loop-agent', language: 'en', media: { format_name: 'wav', has_audio: true } });
    const words = blobs.get(`${jobId}/transcript_words`)!;
    const srt = blobs.get(`${jobId}/transcript_srt`)!;
    expect(words.contentType).toBe('application/json');
    expect(srt.contentType).toBe('application/x-subrip');
    expect(complete.outputs.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'transcript_srt', bytes: srt.body.byteLength },
      { name: 'transcript_words', bytes: words.body.byteLength },
    ]);
    const transcript = TranscriptV2.parse(JSON.parse(words.body.toString('utf8')));
    expect(transcript.segments.map((s) => s.text).join(' ').toLowerCase()).toContain('john dashwood');
    expect(srt.body.toString('utf8')).toMatch(/^1\n00:00:00,000 --> /);

    expect(callsTo(AGENT_ROUTES.stage, jobId).map((c) => c.body.stage)).toEqual(['transcribing']);
    expect(callsTo(AGENT_ROUTES.fail, jobId)).toEqual([]);
    const mine = progress.filter((p) => p.job_id === jobId);
    expect(mine.map((p) => p.stage)).toContain('extracting_audio');
    expect(mine.filter((p) => p.stage === 'transcribing').at(-1)?.fraction).toBe(1);
    expect(fs.readdirSync(workDir)).toEqual([]);
  });

  it('reports a corrupt upload as media_invalid', async () => {
    const jobId = randomUUID();
    const corrupt = path.join(workDir, '..', `corrupt-${jobId}.mp4`);
    fs.writeFileSync(corrupt, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
    jobs.set(jobId, { source: corrupt, leaseMs: 30_000 });
    await publishWakeup(jobId);
    await waitFor(() => callsTo(AGENT_ROUTES.fail, jobId).length > 0, 30_000, { description: 'fail' });
    fs.rmSync(corrupt);
    const fail = FailRequest.parse(callsTo(AGENT_ROUTES.fail, jobId)[0]!.body);
    expect(fail.code).toBe('media_invalid');
    expect(fail.message).toMatch(/not audio or video/);
    expect(callsTo(AGENT_ROUTES.complete, jobId)).toEqual([]);
  });

  it('terms a malformed wake-up and acks one it did not win', async () => {
    const before = calls.filter((c) => c.route === AGENT_ROUTES.claim).length;
    await jetstream(nc).publish(workSubject('transcribe'), '{"v":1,"job_id":"not-a-uuid"}');
    const taken = randomUUID();
    jobs.set(taken, { source: WAV, leaseMs: 30_000, claimedBy: 'someone-else' });
    await publishWakeup(taken);
    await waitFor(() => callsTo(AGENT_ROUTES.claim, taken).length === 1, 10_000, { description: 'claim of a taken job' });
    const jsm = await jetstreamManager(nc);
    await waitFor(async () => (await jsm.consumers.info(WORK_STREAM, workConsumerName('transcribe'))).num_ack_pending === 0, 10_000, { description: 'no pending acks' });
    expect(calls.filter((c) => c.route === AGENT_ROUTES.claim).length).toBe(before + 1);
    expect((await jsm.streams.info(WORK_STREAM)).state.messages).toBe(0);
  });

  it('stops quietly, killing the work, when the coordinator cancels (cancel subject or heartbeat)', async () => {
    const long = path.join(workDir, '..', `long-${randomUUID()}.wav`);
    const files = ['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${n}.wav`));
    await concatWavs(files, long, 8);
    for (const via of ['subject', 'heartbeat'] as const) {
      const jobId = randomUUID();
      jobs.set(jobId, { source: long, leaseMs: 1000 });
      await publishWakeup(jobId);
      await waitFor(() => progress.some((p) => p.job_id === jobId && p.stage === 'transcribing' && p.fraction > 0), 60_000, { description: 'transcribing' });
      const cancelledAt = Date.now();
      if (via === 'subject') nc.publish(cancelSubject(jobs.get(jobId)!.attemptId!));
      else jobs.get(jobId)!.cancelOnHeartbeat = true;
      await waitFor(() => fs.readdirSync(workDir).length === 0, 10_000, { description: `work folder removed after cancel via ${via}` });
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
      expect(callsTo(AGENT_ROUTES.complete, jobId)).toEqual([]);
      expect(callsTo(AGENT_ROUTES.fail, jobId)).toEqual([]);
    }
    fs.rmSync(long);
  });

  // Last: it ends the agent.
  it('stop() mid-attempt aborts the work and drains without reporting', async () => {
    const long = path.join(workDir, '..', `long-${randomUUID()}.wav`);
    await concatWavs([WAV], long, 30);
    const jobId = randomUUID();
    jobs.set(jobId, { source: long, leaseMs: 30_000 });
    await publishWakeup(jobId);
    await waitFor(() => progress.some((p) => p.job_id === jobId && p.stage === 'transcribing'), 60_000, { description: 'transcribing' });
    const stoppingAt = Date.now();
    await agent.stop();
    expect(Date.now() - stoppingAt).toBeLessThan(5_000);
    await expect(agent.done).resolves.toBeUndefined();
    expect(fs.readdirSync(workDir)).toEqual([]);
    expect(callsTo(AGENT_ROUTES.complete, jobId)).toEqual([]);
    expect(callsTo(AGENT_ROUTES.fail, jobId)).toEqual([]);
    fs.rmSync(long);
  });
});
