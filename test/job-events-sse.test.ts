import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { EventSource, type FetchLike } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEvents } from '../coordinator/src/db/schema.ts';
import { waitFor } from './fixtures/index.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * GET /api/v1/jobs/{id}/events on the real stack (Postgres, JetStream, an agent running ffmpeg and
 * faster-whisper on a few seconds of LibriVox speech), read by a stock EventSource client (the
 * `eventsource` package): every status change in order, progress between them, `end`, and a
 * dropped connection resumed by the client's own Last-Event-ID.
 */
describe('job events over server-sent events', () => {
  let stack: Stack;
  let token: string;
  const speech = join(mkdtempSync(join(tmpdir(), 'cutroom-sse-')), 'speech.wav');

  beforeAll(async () => {
    // About 25 s of speech: Whisper then reports several segments, so progress shows between statuses.
    await concatWavs(
      librivoxUtterances().map((u) => u.file),
      speech,
    );
    stack = await startStack({ storage: 'local', agents: 1 });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const createJob = async () => {
    const r = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' } });
    expect(r.status).toBe(201);
    return r.body.job_id as string;
  };
  const upload = async (id: string) => {
    const up = await stack.api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
    const put = await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(speech) });
    expect(put.ok).toBe(true);
    expect((await stack.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);
  };
  const eventRows = (id: string) => stack.coordinator.ctx.db.select().from(jobEvents).where(eq(jobEvents.jobId, id)).orderBy(asc(jobEvents.id));

  /**
   * An EventSource on the job's stream with the bearer token (custom fetch). Each connection is
   * recorded: the Last-Event-ID it sent, whether the server ended its body, and `drop()`, which
   * fails it like a lost network (the client then reconnects by itself after the `retry:` delay).
   */
  function watch(id: string) {
    type Conn = { lastEventId: string | null; serverClosed: boolean; drop: () => void };
    const connections: Conn[] = [];
    const received: { conn: number; event: string; id: string; data: any }[] = [];
    const wrapped: FetchLike = async (url, init) => {
      const res = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
      const conn: Conn = { lastEventId: init.headers['Last-Event-ID'] ?? null, serverClosed: false, drop: () => {} };
      connections.push(conn);
      if (!res.body) return res;
      const reader = res.body.getReader();
      let body!: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          body = c;
        },
        async pull(c) {
          const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          try {
            if (!chunk.done) return c.enqueue(chunk.value);
            conn.serverClosed = true;
            c.close();
          } catch {} // already failed by drop()
        },
        cancel: (reason) => reader.cancel(reason),
      });
      conn.drop = () => {
        body.error(new TypeError('connection lost (test)'));
        void reader.cancel(); // the socket closes: the server sees the client leave
      };
      return new Response(stream, { status: res.status, headers: res.headers });
    };
    const es = new EventSource(`${stack.coordinator.url}/api/v1/jobs/${id}/events`, { fetch: wrapped });
    for (const event of ['status', 'progress', 'end']) {
      es.addEventListener(event, (e) => received.push({ conn: connections.length, event, id: e.lastEventId, data: JSON.parse(e.data) }));
    }
    const has = (match: (r: (typeof received)[number]) => boolean) => waitFor(() => received.some(match), 60_000, { intervalMs: 20 });
    return { es, connections, received, has };
  }

  it('delivers every status change in order with progress between, then end, after which the server closes', async () => {
    const id = await createJob();
    const w = watch(id);
    await w.has((r) => r.data.status === 'uploading');
    await upload(id);
    await w.has((r) => r.event === 'end');
    await waitFor(() => w.connections[0]!.serverClosed, 5000, { description: 'the server to close the stream after end' });
    w.es.close();

    const rows = await eventRows(id);
    // The claim is a row of its own (extracting_audio → extracting_audio, "claimed"): every row is an event.
    expect(rows.map((r) => r.toStatus).filter((s, i, all) => s !== all[i - 1])).toEqual([
      'pending',
      'uploading',
      'extracting_audio',
      'transcribing',
      'completed',
    ]);
    const statuses = w.received.filter((r) => r.event === 'status');
    expect(statuses.map((r) => [r.id, r.data.status, r.data.from])).toEqual(rows.map((r) => [String(r.id), r.toStatus, r.fromStatus]));
    expect(statuses.every((r) => r.data.id === r.id && r.data.job_id === id && r.data.payment_status === 'paid' && r.data.error_message === null)).toBe(true);

    // Progress comes while a stage runs, for that stage, never once the job has ended.
    const progress = w.received.filter((r) => r.event === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) {
      const current = w.received.slice(0, w.received.indexOf(p)).findLast((r) => r.event === 'status');
      expect(p.data.stage).toBe(current?.data.status);
      expect(p.data.fraction).toBeGreaterThanOrEqual(0);
      expect(p.data.fraction).toBeLessThanOrEqual(1);
    }
    expect(w.received.at(-1)).toMatchObject({ event: 'end', data: { type: 'end', job_id: id, status: 'completed' } });
    expect(w.connections).toHaveLength(1);
    expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.status).toBe('completed');
  });

  it('resumes a dropped connection from Last-Event-ID with exactly the missing status events', async () => {
    const id = await createJob();
    const w = watch(id);
    await w.has((r) => r.data.status === 'uploading');
    await upload(id);
    await w.has((r) => r.data.status === 'extracting_audio');
    w.connections[0]!.drop();
    await w.has((r) => r.event === 'end');
    w.es.close();

    const rows = await eventRows(id);
    const first = w.received.filter((r) => r.event === 'status' && r.conn === 1);
    const second = w.received.filter((r) => r.event === 'status' && r.conn === 2);
    expect(w.connections).toHaveLength(2);
    // The client sent the last id it had; the server answered with what came after it, and only that.
    expect(w.connections[1]!.lastEventId).toBe(first.at(-1)!.id);
    expect(first.map((r) => r.data.status)).toContain('extracting_audio');
    expect(second.length).toBeGreaterThan(0);
    expect(second.at(-1)!.data.status).toBe('completed');
    expect([...first, ...second].map((r) => r.id)).toEqual(rows.map((r) => String(r.id)));
    expect(w.received.at(-1)).toMatchObject({ conn: 2, event: 'end', data: { status: 'completed' } });
  });

  it('refuses without a token (401), for another session’s job (403) and for an unknown job (404), as JSON', async () => {
    const id = await createJob();
    const other = await stack.api.newSession();
    const url = (job: string) => `${stack.coordinator.url}/api/v1/jobs/${job}/events`;
    for (const [target, auth, status] of [
      [id, undefined, 401],
      [id, other, 403],
      ['00000000-0000-4000-8000-000000000000', token, 404],
    ] as const) {
      const res = await fetch(url(target), { headers: { accept: 'text/event-stream', ...(auth && { authorization: `Bearer ${auth}` }) } });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(typeof ((await res.json()) as { error: unknown }).error).toBe('string');
    }
    // A stock EventSource gives up on a refusal instead of reconnecting.
    const es = new EventSource(url(id));
    const code = await new Promise<number | undefined>((resolve) => es.addEventListener('error', (e) => resolve(e.code)));
    expect(code).toBe(401);
    expect(es.readyState).toBe(es.CLOSED);
  });
});
