import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCapabilities, WORK_STREAM, workConsumerName, workSubject } from '@cutroom/proto';
import { agents, jobAttempts, jobEvents, jobOutputs } from '../coordinator/src/db/schema.ts';
import { waitFor } from './fixtures/index.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * The render-agent's loop against the real coordinator (Postgres, JetStream, local blobs,
 * agents as child processes): what it announces, how it disposes of wake-ups it cannot use,
 * the progress it reports, and how a frozen agent whose lease was taken over is fenced off.
 * A short lease (3 s, swept every 0.5 s) keeps the takeover case quick.
 */
describe('render-agent loop on the real stack', () => {
  let stack: Stack;
  let token: string;
  let nc: NatsConnection;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-loop-'));
  const utterances = librivoxUtterances();
  // About 100 s of speech: several seconds of tiny.en on CPU, long enough to watch and to freeze.
  const long = join(work, 'long.wav');
  const short = utterances[1]!.file;

  beforeAll(async () => {
    await concatWavs(
      utterances.map((u) => u.file),
      long,
      4,
    );
    stack = await startStack({ storage: 'local', agents: 1, leaseMs: 3000, sweepMs: 500 });
    token = await stack.api.newSession();
    nc = await stack.connectNats();
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const attemptsOf = (jobId: string) =>
    stack.coordinator.ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId)).orderBy(asc(jobAttempts.startedAt));
  const isAlive = (pid: number) => {
    try {
      return process.kill(pid, 0);
    } catch {
      return false;
    }
  };
  const whoDid = async (jobId: string) => (await attemptsOf(jobId)).map((a) => [a.agentId, a.outcome]);

  it('records the capabilities the agent announced', async () => {
    const db = stack.coordinator.ctx.db;
    let row: typeof agents.$inferSelect | undefined;
    await waitFor(
      async () => {
        // The row exists from enrollment on; the capabilities come with the first announcement.
        [row] = await db.select().from(agents).where(eq(agents.id, 'test-agent-1'));
        return row !== undefined && 'agent_id' in (row.capabilities as object);
      },
      60_000,
      { description: 'test-agent-1 to register with the coordinator' },
    );
    const caps = AgentCapabilities.parse(row!.capabilities);
    expect(caps).toMatchObject({
      agent_id: 'test-agent-1',
      work_kinds: ['transcribe', 'cut', 'understand'],
      cuda: { available: false },
      whisper: { device: 'cpu' },
    });
    expect(caps.ffmpeg.encoders.length).toBeGreaterThan(0);
    // No GPU on this machine: nvenc is claimed only when a real encode session opened.
    expect(caps.ffmpeg.nvenc).toBe(false);
    expect(caps.whisper.models).toContain('tiny.en');
    expect(caps.free_disk_bytes).toBeGreaterThan(0);
  });

  it('settles unreadable and unclaimable wake-ups, then still runs real work', async () => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    // Not JSON at all (invalid UTF-8), and a valid wake-up for a job the coordinator never had.
    await js.publish(workSubject('transcribe'), new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x80]));
    const ghostJob = randomUUID();
    const ghost = await js.publish(
      workSubject('transcribe'),
      JSON.stringify({ v: 1, job_id: ghostJob, kind: 'transcribe', enqueued_at: new Date().toISOString() }),
    );
    // Both must be acked/terminated, not nak'ed or left to redeliver: the ack floor passes the
    // second one and nothing is pending or outstanding on the consumer.
    await waitFor(
      async () => {
        const info = await jsm.consumers.info(WORK_STREAM, workConsumerName('transcribe'));
        return info.ack_floor.stream_seq >= ghost.seq && info.num_pending + info.num_ack_pending === 0;
      },
      30_000,
      { description: 'the agent to settle both bad wake-ups (ack floor past them, 0 pending)' },
    );
    expect((await jsm.streams.info(WORK_STREAM)).state.messages).toBe(0);
    expect(await attemptsOf(ghostJob)).toEqual([]);
    expect(isAlive(stack.agents[0]!.process.pid!), 'test-agent-1 still running').toBe(true);

    const id = await stack.api.submitTranscribe(token, short, 'short.wav', 'audio/wav');
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(await whoDid(id)).toEqual([['test-agent-1', 'completed']]);
  });

  it('shows rising transcription progress on the job while it runs, and none after', async () => {
    const { api } = stack;
    const id = await api.submitTranscribe(token, long, 'long.wav', 'audio/wav');
    const seen: number[] = [];
    const deadline = Date.now() + 120_000;
    let job: any;
    for (;;) {
      job = (await api.call('GET', `/api/v1/jobs/${id}`, { token })).body;
      if (job.status === 'transcribing' && job.progress) {
        expect(job.progress.stage).toBe('transcribing');
        seen.push(job.progress.fraction);
      }
      if (['completed', 'failed'].includes(job.status)) break;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after 120 s; progress seen: ${seen.join(', ')}`);
      await sleep(200);
    }
    expect(job.status, job.error_message).toBe('completed');
    expect(job.progress).toBeNull();
    // Coalesced to about one write a second: at least two distinct values, never going backwards.
    const distinct = [...new Set(seen)];
    expect(distinct.length, `fractions seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(distinct.at(-1)!).toBeGreaterThan(distinct[0]!);
  });

  it('runs a short job of another kind while a long one runs (slots by work kind): find_clips is not held behind a long transcribe', async () => {
    const { api } = stack;
    const longer = join(work, 'longer.wav');
    await concatWavs(
      utterances.map((u) => u.file),
      longer,
      10,
    );
    const longId = await api.submitTranscribe(token, longer, 'longer.wav', 'audio/wav');
    await api.waitForJob(token, longId, (j) => j.status === 'transcribing', 60_000);
    // A find_clips (work kind understand) of a 3 s recording: shorter than a clip, so no text model runs.
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'find_clips', filename: 'short.wav', content_type: 'audio/wav' } });
    const shortId = created.body.job_id as string;
    const up = await api.call('GET', `/api/v1/jobs/${shortId}/upload-url`, { token });
    expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(short) })).ok).toBe(true);
    expect((await api.call('POST', `/api/v1/jobs/${shortId}/complete-upload`, { token })).status).toBe(200);
    const done = await api.waitForJob(token, shortId, undefined, 120_000);
    expect(done.status, done.error_message).toBe('completed');
    // It ended while the long transcribe still ran, on the same (only) agent.
    expect((await api.call('GET', `/api/v1/jobs/${longId}`, { token })).body.status).toBe('transcribing');
    expect(await whoDid(shortId)).toEqual([['test-agent-1', 'completed']]);
    const long = await api.waitForJob(token, longId, undefined, 180_000);
    expect(long.status, long.error_message).toBe('completed');
    expect(await whoDid(longId)).toEqual([['test-agent-1', 'completed']]);
  });

  it('fences a frozen agent whose lease was taken over: it writes nothing and recovers', async () => {
    const { api, coordinator } = stack;
    const { db, blobs } = coordinator.ctx;
    const zombie = stack.agents[0]!;
    const pid = zombie.process.pid!;
    const id = await api.submitTranscribe(token, long, 'long.wav', 'audio/wav');
    await api.waitForJob(token, id, (j) => j.status === 'transcribing', 60_000);
    // Only the agent's node process stops (as under a long GC pause or a stalled host); its
    // Whisper child runs on, so on resume the finished transcript races the cancel.
    process.kill(pid, 'SIGSTOP');
    let frozen = true;
    try {
      const [first] = await attemptsOf(id);
      expect(first!.agentId).toBe(zombie.id);
      const attemptDir = join(tmpdir(), 'cutroom-agent', first!.id);
      expect(existsSync(attemptDir), `the frozen attempt's work folder ${attemptDir}`).toBe(true);

      await waitFor(async () => (await attemptsOf(id))[0]?.outcome === 'lease_expired', 15_000, { description: 'the sweeper to expire the frozen lease' });
      const rescuer = await stack.startAgent('rescuer-agent');
      const job = await api.waitForJob(token, id, undefined, 120_000);
      expect(job.status, job.error_message).toBe('completed');

      // Whisper is deterministic, so a zombie's upload would be byte-identical to the rescuer's.
      // Replace each output the job completed with (job_outputs names them) by a marked copy: any
      // later write by the zombie over them would erase the mark.
      const [out] = await db.select().from(jobOutputs).where(eq(jobOutputs.jobId, id));
      expect(out!.storageKey).toMatch(new RegExp(`^jobs/${id}/outputs/[0-9a-f-]{36}/transcript_srt$`));
      const outputs = { [out!.meta['words_key']!]: 'application/json', [out!.storageKey!]: 'application/x-subrip' };
      const marked = new Map<string, Buffer>();
      for (const [key, type] of Object.entries(outputs)) {
        const body = Buffer.concat([await blobs.getBytes(key), Buffer.from('\n')]);
        await blobs.put(key, body, type);
        marked.set(key, body);
      }

      process.kill(pid, 'SIGCONT');
      frozen = false;
      // Its folder goes only after it stopped for good (after any upload or report it tried).
      await waitFor(() => !existsSync(attemptDir), 15_000, { description: 'the resumed zombie to abandon its attempt and remove its work folder' });
      await sleep(3000);
      for (const [key, body] of marked) expect((await blobs.getBytes(key)).equals(body), `${key} was overwritten by the zombie`).toBe(true);

      expect(await whoDid(id)).toEqual([
        [zombie.id, 'lease_expired'],
        ['rescuer-agent', 'completed'],
      ]);
      expect(await db.select().from(jobOutputs).where(eq(jobOutputs.jobId, id))).toHaveLength(1);
      const events = await db.select().from(jobEvents).where(eq(jobEvents.jobId, id));
      expect(events.filter((e) => e.toStatus === 'completed')).toHaveLength(1);
      const after = (await api.call('GET', `/api/v1/jobs/${id}`, { token })).body;
      expect([after.status, after.completed_at]).toEqual(['completed', job.completed_at]);

      // Alive and back to pulling: with the rescuer gone, only the former zombie can run this.
      expect(isAlive(pid), 'the former zombie still running').toBe(true);
      await rescuer.stop();
      const next = await api.submitTranscribe(token, short, 'short.wav', 'audio/wav');
      const nextJob = await api.waitForJob(token, next, undefined, 60_000);
      expect(nextJob.status, nextJob.error_message).toBe('completed');
      expect(await whoDid(next)).toEqual([[zombie.id, 'completed']]);
    } finally {
      // Never leave a stopped child behind: stack.stop()'s SIGTERM would wait on it.
      if (frozen) process.kill(pid, 'SIGCONT');
    }
  });
});
