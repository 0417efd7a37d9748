import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Api } from './api-client.ts';
import { followJob } from './follow.ts';
import { SessionStore } from './session.ts';

const JOB = '3f2a9c1e-0000-4000-8000-000000000001';
const job = (status: string, progress: unknown = null) => ({ job_id: JOB, job_type: 'transcribe', status, payment_status: 'paid', outputs: [], progress });
const status = (id: number, s: string) => `id: ${id}\nevent: status\ndata: ${JSON.stringify({ type: 'status', id: String(id), job_id: JOB, status: s })}\n\n`;
const progress = (stage: string, fraction: number) => `event: progress\ndata: ${JSON.stringify({ type: 'progress', job_id: JOB, stage, fraction })}\n\n`;
const end = (s: string) => `event: end\ndata: ${JSON.stringify({ type: 'end', job_id: JOB, status: s })}\n\n`;

let server: Server | undefined;
afterEach(() => server?.close());

/** A fake coordinator: sessions, GET /jobs/{id} from `jobs()`, and /events answered by `events(req, res, n)`. */
async function fake(events: (req: IncomingMessage, res: ServerResponse, n: number) => void, jobs: () => unknown): Promise<Api> {
  let n = 0;
  server = createServer((req, res) => {
    if (req.url === '/api/v1/sessions') {
      res.writeHead(201, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ session_token: 't', session_id: 's', expires_at: new Date(Date.now() + 3600_000).toISOString() }));
    }
    if (req.url === `/api/v1/jobs/${JOB}/events`) return events(req, res, n++);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(jobs()));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return new Api(`http://127.0.0.1:${port}`, new SessionStore(mkdtempSync(join(tmpdir(), 'cutroom-follow-'))));
}

describe('followJob', () => {
  it('reports stages from the stream, resumes a dropped stream with Last-Event-ID, and returns the final job', async () => {
    const lastIds: (string | undefined)[] = [];
    const api = await fake(
      (req, res, n) => {
        lastIds.push(req.headers['last-event-id'] as string | undefined);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (n === 0)
          return res.end(`retry: 10\n\n${status(1, 'pending')}${status(2, 'uploading')}${status(3, 'extracting_audio')}${progress('extracting_audio', 0.5)}`);
        res.end(`${status(4, 'transcribing')}${progress('transcribing', 0.25)}${status(5, 'completed')}${end('completed')}`);
      },
      () => job('completed'),
    );
    const seen: string[] = [];
    const final = await followJob(api, JOB, { mode: 'sse', onStage: (s, f) => seen.push(`${s}:${f ?? 0}`), onNote: () => {} });
    expect(final.status).toBe('completed');
    expect(lastIds).toEqual([undefined, '3']);
    // pending / uploading are not processing stages; completed comes as the end.
    expect(seen).toEqual(['extracting_audio:0', 'extracting_audio:0.5', 'transcribing:0', 'transcribing:0.25']);
  });

  it('falls back to polling GET /jobs/{id} when the stream keeps failing', async () => {
    let polls = 0;
    const api = await fake(
      (_req, res) => {
        res.writeHead(502);
        res.end('bad gateway');
      },
      () => {
        polls++;
        return polls < 3 ? job('transcribing', { stage: 'transcribing', fraction: polls / 4, at: '' }) : job('failed');
      },
    );
    const seen: string[] = [];
    const notes: string[] = [];
    const final = await followJob(api, JOB, { mode: 'sse', onStage: (s, f) => seen.push(`${s}:${f}`), onNote: (l) => notes.push(l), pollMs: 5, retryMs: 5 });
    expect(final.status).toBe('failed');
    expect(notes).toEqual(['the job event stream keeps failing: polling the job instead']);
    expect(seen).toEqual(['transcribing:0.25', 'transcribing:0.5']);
  });

  it('does not fall back when the job itself is refused', async () => {
    const api = await fake(
      (_req, res) => {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `job ${JOB} not found` }));
      },
      () => job('completed'),
    );
    await expect(followJob(api, JOB, { mode: 'sse', onStage: () => {}, onNote: () => {} })).rejects.toMatchObject({ httpStatus: 404 });
  });
});
