import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createSessionCall } from '../service/index.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';

/**
 * The per-session rate limits hold over MCP whichever way the session travels: as the
 * Authorization header or as the tools' `session_token` argument (hosts that cannot set headers).
 * RATE_LIMIT_PER_SESSION 3 stands for the default 60.
 */
let ctx: EngineCtx;
let app: FastifyInstance;
beforeAll(async () => {
  ctx = await createEngineCtx({ RATE_LIMIT_PER_SESSION: '3', RATE_LIMIT_PER_IP: '1000' });
  app = await buildApp({ ctx, healthChecks: {} });
}, 60_000);
afterAll(async () => {
  await app.close();
  await ctx.close();
});

let nextId = 1;
async function transcribe(args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26', ...headers },
    payload: {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: 'transcribe', arguments: { filename: 'talk.wav', content_type: 'audio/wav', ...args } },
    },
  });
  const last = res.body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)))
    .at(-1) as { result: { isError?: boolean; structuredContent?: Record<string, unknown> } };
  return last.result;
}

describe('MCP rate limits', () => {
  it('counts job creation per session when the token is a tool argument, as when it is the header', async () => {
    const asArgument = (await createSessionCall(ctx)).session_token;
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await transcribe({ session_token: asArgument }));
    expect(results.map((r) => r.isError === true)).toEqual([false, false, false, true, true]);
    expect(results[3]!.structuredContent).toMatchObject({ code: 'rate_limited', status: 429, retryable: true });

    // The header's session has a bucket of its own, and the argument's bucket is the same session's whichever way it comes.
    const asHeader = (await createSessionCall(ctx)).session_token;
    for (let i = 0; i < 3; i++) expect((await transcribe({}, { authorization: `Bearer ${asHeader}` })).isError).not.toBe(true);
    expect((await transcribe({}, { authorization: `Bearer ${asHeader}` })).structuredContent).toMatchObject({ code: 'rate_limited' });
    expect((await transcribe({ session_token: asHeader })).structuredContent).toMatchObject({ code: 'rate_limited' });
  });
});
