import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus } from '@cutroom/shared/job-types';
import { transitionJob } from '../../jobs/transition-job.ts';
import { createSessionCall } from '../../service/index.ts';
import { queueTranscribeJob, type EngineCtx } from '../../testing/engine-ctx.ts';
import { startTestApp } from '../../testing/test-app.ts';
import { installErrorHandler } from '../error-handler.ts';
import { eventRoutes } from './events.ts';

let ctx: EngineCtx;
let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ ctx, app, close } = await startTestApp());
}, 60_000);
afterAll(() => close());

const move = (jobId: string, from: JobStatus, to: JobStatus) =>
  ctx.db.transaction((tx) => transitionJob(tx, { jobId, from, to, reason: `test: ${to}`, now: ctx.clock.now() }));

/** The frames of an SSE body: {id?, event?, data?} per blank-line-separated block; comments as {comment}. */
function frames(body: string): Record<string, string>[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((block) => Object.fromEntries(block.split('\n').map((line) => (line.startsWith(': ') ? ['comment', line.slice(2)] : line.split(/: (.*)/s, 2)))));
}

async function completedJob() {
  const q = await queueTranscribeJob(ctx);
  await move(q.jobId, 'extracting_audio', 'transcribing');
  await move(q.jobId, 'transcribing', 'completed');
  return q;
}

describe('GET /api/v1/jobs/:id/events', () => {
  it('streams every status event with its id, then end, and closes; with the security headers', async () => {
    const { jobId, token } = await completedJob();
    const res = await app.inject({ url: `/api/v1/jobs/${jobId}/events`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache, no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const f = frames(res.body);
    expect(f[0]).toEqual({ retry: '2000' });
    const statuses = f.filter((x) => x.event === 'status');
    expect(statuses.map((x) => JSON.parse(x.data!).status)).toEqual(['pending', 'uploading', 'extracting_audio', 'transcribing', 'completed']);
    for (const s of statuses) expect(JSON.parse(s.data!).id).toBe(s.id);
    expect(f.at(-1)).toEqual({ event: 'end', data: JSON.stringify({ type: 'end', job_id: jobId, status: 'completed' }) });
  });

  it('resumes after Last-Event-ID (the header wins over last_event_id) and refuses a malformed one', async () => {
    const { jobId, token } = await completedJob();
    const all = frames((await app.inject({ url: `/api/v1/jobs/${jobId}/events`, headers: { authorization: `Bearer ${token}` } })).body)
      .filter((x) => x.id)
      .map((x) => x.id!);
    const ids = async (headers: Record<string, string>, query = '') =>
      frames((await app.inject({ url: `/api/v1/jobs/${jobId}/events${query}`, headers: { authorization: `Bearer ${token}`, ...headers } })).body)
        .filter((x) => x.id)
        .map((x) => x.id);
    expect(await ids({ 'last-event-id': all[2]! })).toEqual(all.slice(3));
    expect(await ids({}, `?last_event_id=${all[3]}`)).toEqual(all.slice(4));
    expect(await ids({ 'last-event-id': all[1]! }, `?last_event_id=${all[3]}`)).toEqual(all.slice(2));
    for (const [headers, query] of [
      [{ 'last-event-id': 'abc' }, ''],
      [{}, '?last_event_id=-1'],
    ] as const) {
      const bad = await app.inject({ url: `/api/v1/jobs/${jobId}/events${query}`, headers: { authorization: `Bearer ${token}`, ...headers } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatch(/event id/);
    }
  });

  it('answers 400 / 401 / 403 / 404 as {error} JSON before streaming', async () => {
    const { jobId, token } = await queueTranscribeJob(ctx);
    const other = (await createSessionCall(ctx)).session_token;
    const get = (url: string, t?: string) => app.inject({ url, headers: t ? { authorization: `Bearer ${t}` } : {} });
    for (const [res, status] of [
      [await get(`/api/v1/jobs/${jobId}/events`), 401],
      [await get(`/api/v1/jobs/${jobId}/events`, other), 403],
      [await get('/api/v1/jobs/00000000-0000-4000-8000-000000000000/events', token), 404],
      [await get('/api/v1/jobs/not-a-uuid/events', token), 400],
    ] as const) {
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toContain('application/json');
      expect(typeof res.json().error).toBe('string');
    }
  });

  it('is declared in /openapi.json with its media type, resume parameters and error statuses', async () => {
    const op = (await app.inject({ url: '/openapi.json' })).json().paths['/api/v1/jobs/{id}/events'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
    // OpenAPI 3.1: the schema of an event stream is that of one event; its data is JSON of a documented shape.
    const event = op.responses['200'].content['text/event-stream'].schema;
    expect(event.properties.event.enum).toEqual(['status', 'progress', 'end']);
    expect(event.properties.data).toMatchObject({ type: 'string', contentMediaType: 'application/json' });
    expect(event.properties.data.contentSchema.oneOf).toHaveLength(3);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '503']));
    expect(op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'query:last_event_id', 'header:last-event-id']),
    );
    expect(op.security).toEqual([{ bearer: [] }]);
  });

  it('closes a stream after its maximum duration (keep-alives meanwhile) and when the server closes', async () => {
    const small = Fastify();
    small.setValidatorCompiler(validatorCompiler);
    small.setSerializerCompiler(serializerCompiler);
    installErrorHandler(small);
    await small.register(eventRoutes, { prefix: '/api/v1', ctx, maxStreamMs: 400, keepAliveMs: 100 });
    const { jobId, token } = await queueTranscribeJob(ctx);
    const started = Date.now();
    const res = await small.inject({ url: `/api/v1/jobs/${jobId}/events`, headers: { authorization: `Bearer ${token}` } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    const f = frames(res.body);
    expect(f.filter((x) => x.comment === 'keep-alive').length).toBeGreaterThanOrEqual(2);
    expect(f.filter((x) => x.event === 'status').map((x) => JSON.parse(x.data!).status)).toEqual(['pending', 'uploading', 'extracting_audio']);
    expect(f.some((x) => x.event === 'end')).toBe(false); // not ended: the client resumes

    const open = small.inject({ url: `/api/v1/jobs/${jobId}/events`, headers: { authorization: `Bearer ${token}` } });
    await new Promise((r) => setTimeout(r, 100));
    const closing = Date.now();
    await small.close();
    expect((await open).statusCode).toBe(200);
    expect(Date.now() - closing).toBeLessThan(300);
  });
});
