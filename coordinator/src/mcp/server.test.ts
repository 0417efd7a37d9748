import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transitionJob } from '../jobs/transition-job.ts';
import { queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { startTestApp } from '../testing/test-app.ts';
import { MCP_TOOLS } from './catalog.ts';
import { TOOL_HANDLERS } from './tools/index.ts';

let ctx: EngineCtx;
let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ ctx, app, close } = await startTestApp());
}, 60_000);
afterAll(() => close());

let nextId = 1;
/** One JSON-RPC request to POST /mcp (stateless: no initialize needed), its answer read off the SSE body. */
async function rpc(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26', ...headers },
    payload: { jsonrpc: '2.0', id: nextId++, method, params },
  });
  const data = res.body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
  return { res, message: data.at(-1) as { result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } } };
}
const tool = async (name: string, args: Record<string, unknown>) => (await rpc('tools/call', { name, arguments: args })).message.result!;

describe('MCP endpoint', () => {
  it('initializes with the spec protocol version 2025-03-26 (and newer ones the SDK negotiates), statelessly', async () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const { res, message } = await rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '1' } });
      expect(message.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'cutroom' }, capabilities: { tools: { listChanged: false } } });
      expect(res.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('has a handler for every tool of the catalog, and lists them all', async () => {
    expect(Object.keys(TOOL_HANDLERS).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    const { res, message } = await rpc('tools/list');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(message.result!.tools.map((t: { name: string }) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const t of message.result!.tools) expect(t.inputSchema.type).toBe('object');
  });

  it('annotates every tool truthfully: reads are read-only and idempotent, paid creations are neither, URL fetchers reach the open world', async () => {
    const tools = (await rpc('tools/list')).message.result!.tools as { name: string; title: string; annotations: Record<string, unknown> }[];
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const t of tools) {
      expect(Object.keys(t.annotations).sort(), t.name).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title']);
      expect(t.annotations['title']).toBe(t.title);
      // Nothing here deletes what a caller has (DELETE of sources and outputs is REST only).
      expect(t.annotations['destructiveHint'], t.name).toBe(false);
    }
    for (const read of ['get_job_status', 'get_transcript', 'get_download_links', 'list_jobs'])
      expect(hints[read]).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    const paid = MCP_TOOLS.filter((t) => t.price.kind !== 'free').map((t) => t.name);
    expect(paid.length).toBeGreaterThan(8);
    for (const name of paid) expect(hints[name], name).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    for (const name of ['transcribe', 'summarize', 'find_clips']) expect(hints[name], name).toMatchObject({ openWorldHint: true });
    for (const name of ['extract_clip', 'clips_vertical', 'clips_from_video', 'complete_upload'])
      expect(hints[name], name).toMatchObject({ openWorldHint: false });
    expect(hints['complete_upload']).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it('answers get_job_status for the owner and a tool error (403) for another session', async () => {
    const q = await queueTranscribeJob(ctx);
    await ctx.db.transaction((tx) => transitionJob(tx, { jobId: q.jobId, from: 'extracting_audio', to: 'failed', reason: 'test', now: ctx.clock.now() }));
    const mine = await tool('get_job_status', { job_id: q.jobId, session_token: q.token, wait_seconds: 5 });
    expect(mine.isError).toBeUndefined();
    expect(mine.structuredContent).toMatchObject({ job_id: q.jobId, status: 'failed' });
    const stranger = (await tool('create_session', {})).structuredContent.session_token;
    const theirs = await tool('get_job_status', { job_id: q.jobId, session_token: stranger });
    expect(theirs).toMatchObject({ isError: true, structuredContent: { code: 'forbidden', status: 403, retryable: false } });
    const none = await tool('get_job_status', { job_id: q.jobId });
    expect(none.structuredContent).toMatchObject({ code: 'unauthenticated', status: 401 });
  });

  it('refuses an unknown tool with a clean JSON-RPC error, and GET /mcp with 405', async () => {
    const { message } = await rpc('tools/call', { name: 'nope', arguments: {} });
    expect(message.error).toMatchObject({ code: -32602 });
    expect(message.error!.message).toMatch(/^unknown tool nope; the tools are create_session/);
    const get = await app.inject({ method: 'GET', url: '/mcp' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('counts tool calls in the REST rate-limit groups: past the limit a retryable tool error with retry_after_seconds', async () => {
    const limit = ctx.config.RATE_LIMIT_SESSIONS_PER_IP;
    let refused: Record<string, any> | undefined;
    for (let i = 0; i <= limit && !refused; i++) {
      const r = await tool('create_session', {});
      if (r.isError) refused = r;
    }
    expect(refused?.structuredContent).toMatchObject({ code: 'rate_limited', status: 429, retryable: true, retry_after_seconds: expect.any(Number) });
    // Reading is not limited.
    expect((await rpc('tools/list')).message.result!.tools.length).toBe(MCP_TOOLS.length);
  });
});
