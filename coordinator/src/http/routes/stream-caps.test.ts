import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallOf } from '../../mcp/tool-call.ts';
import { jobStatusTool } from '../../mcp/tools/read-tools.ts';
import { createEngineCtx, queueTranscribeJob, type EngineCtx } from '../../testing/engine-ctx.ts';
import { installErrorHandler } from '../error-handler.ts';
import { eventRoutes } from './events.ts';

/**
 * Long-lived connections are capped (service/stream-slots.ts): event streams and MCP waits count
 * together, per session (429), per client IP (429) and per process (503), each with Retry-After,
 * and a slot comes back when its stream ends. Caps of 2 / 3 / 4 stand for the defaults (10 / 50 / 1000).
 */
let ctx: EngineCtx;
let app: FastifyInstance;
beforeAll(async () => {
  ctx = await createEngineCtx({ STREAMS_PER_SESSION: '2', STREAMS_PER_IP: '3', STREAMS_MAX: '4' });
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  // Streams of queued jobs stay open until their bound: 0.8 s here.
  await app.register(eventRoutes, { prefix: '/api/v1', ctx, maxStreamMs: 800, keepAliveMs: 400 });
}, 60_000);
afterAll(async () => {
  await app.close();
  await ctx.close();
});

const open = (jobId: string, token: string, ip: string) =>
  app.inject({ url: `/api/v1/jobs/${jobId}/events`, headers: { authorization: `Bearer ${token}` }, remoteAddress: ip });
const settle = () => new Promise((r) => setTimeout(r, 100));

describe('caps on event streams and MCP waits', () => {
  it('refuses past the session cap and the IP cap with 429, past the process cap with 503, counts MCP waits too, and frees slots when streams end', async () => {
    const [a, b, c] = [await queueTranscribeJob(ctx), await queueTranscribeJob(ctx), await queueTranscribeJob(ctx)];
    const held = [open(a.jobId, a.token, '10.0.0.1'), open(a.jobId, a.token, '10.0.0.1')];
    await settle();

    // Session a holds 2: a third stream, from anywhere, is refused at once.
    const third = await open(a.jobId, a.token, '10.0.0.9');
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('5');
    expect(third.json().error).toMatch(/this session already holds 2 open event streams or waits/);
    // An MCP wait of the same session counts in the same budget.
    const wait = toolCallOf(ctx, {
      args: {},
      headers: { authorization: `Bearer ${a.token}` },
      meta: undefined,
      signal: new AbortController().signal,
      progress: null,
    });
    await expect(jobStatusTool(wait, { job_id: a.jobId, wait_seconds: 5 })).rejects.toMatchObject({ code: 'too_many_requests' });
    // Without waiting, the status is still answered.
    expect((await jobStatusTool(wait, { job_id: a.jobId })).value).toMatchObject({ job_id: a.jobId });

    held.push(open(b.jobId, b.token, '10.0.0.1'));
    await settle();
    // 10.0.0.1 holds 3: another session from it is refused; from another address it is served.
    const fromFullIp = await open(c.jobId, c.token, '10.0.0.1');
    expect(fromFullIp.statusCode).toBe(429);
    expect(fromFullIp.json().error).toMatch(/this address already holds 3/);
    held.push(open(c.jobId, c.token, '10.0.0.2'));
    await settle();
    // The process holds 4: the next is a 503, whoever asks.
    const full = await open(c.jobId, c.token, '10.0.0.3');
    expect(full.statusCode).toBe(503);
    expect(full.headers['retry-after']).toBe('5');
    expect(full.json().error).toMatch(/as many event streams and waits as it takes/);

    // The held streams were served, and end at their bound; their slots come back.
    for (const r of await Promise.all(held)) expect(r.statusCode).toBe(200);
    const again = await Promise.all([open(a.jobId, a.token, '10.0.0.1'), open(a.jobId, a.token, '10.0.0.1'), open(c.jobId, c.token, '10.0.0.1')]);
    expect(again.map((r) => r.statusCode)).toEqual([200, 200, 200]);
  }, 30_000);
});
