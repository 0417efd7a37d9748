import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { createSessionCall } from '../../service/index.ts';
import { createEngineCtx, type EngineCtx } from '../../testing/engine-ctx.ts';
import { startOAuthHost, type OAuthHost } from '../../testing/oauth-host.ts';

const uuid = '00000000-0000-4000-8000-000000000001';

describe('connection routes (publishing not configured)', () => {
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createEngineCtx();
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('answers every route with the documented 400 naming the settings, with or without a session', async () => {
    const { session_token } = await createSessionCall(ctx);
    for (const headers of [{ authorization: `Bearer ${session_token}` }, {}]) {
      for (const [method, url] of [
        ['POST', '/api/v1/connections/video-host'],
        ['GET', '/api/v1/connections/video-host/callback?state=abc&code=def'],
        ['GET', '/api/v1/connections'],
        ['DELETE', `/api/v1/connections/${uuid}`],
      ] as const) {
        const res = await app.inject({ method, url, headers });
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json().error).toMatch(/publishing is not configured on this server.*VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET/);
      }
    }
  });

  it('declares the routes under the connections tag with their statuses', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { tags: string[]; responses: object }>> };
    const ops = {
      post: doc.paths['/api/v1/connections/video-host']!['post']!,
      callback: doc.paths['/api/v1/connections/video-host/callback']!['get']!,
      list: doc.paths['/api/v1/connections']!['get']!,
      delete: doc.paths['/api/v1/connections/{id}']!['delete']!,
    };
    for (const op of Object.values(ops)) expect(op.tags).toEqual(['connections']);
    expect(Object.keys(ops.post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '429', '503']));
    expect(Object.keys(ops.callback.responses)).toEqual(expect.arrayContaining(['200', '400', '503']));
    expect(Object.keys(ops.callback.responses)).not.toContain('401');
    expect(Object.keys(ops.delete.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
  });
});

describe('connection routes (publishing on, a real token endpoint)', () => {
  let host: OAuthHost;
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    host = await startOAuthHost();
    ctx = await createEngineCtx(host.env);
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await host.stop();
  });

  it('connects through POST and the callback (JSON, or a page for a browser), lists without tokens, deletes', async () => {
    const { session_token } = await createSessionCall(ctx);
    const auth = { authorization: `Bearer ${session_token}` };
    expect((await app.inject({ method: 'POST', url: '/api/v1/connections/video-host' })).statusCode).toBe(401);
    const start = await app.inject({ method: 'POST', url: '/api/v1/connections/video-host', headers: auth });
    expect(start.statusCode).toBe(201);
    expect(start.headers['cache-control']).toBe('no-store');
    const { authorize_url, state } = start.json().connection_request;
    const answer = host.consent(authorize_url);
    expect(answer.state).toBe(state);
    const cb = await app.inject({ url: `/api/v1/connections/video-host/callback?code=${encodeURIComponent(answer.code)}&state=${state}&scope=x` });
    expect(cb.statusCode).toBe(200);
    expect(cb.json()).toMatchObject({ connected: true, connection: { account_id: 'UCalice', status: 'active' } });
    const id = cb.json().connection.id as string;

    const again = host.consent(
      (await app.inject({ method: 'POST', url: '/api/v1/connections/video-host', headers: auth })).json().connection_request.authorize_url,
    );
    const page = await app.inject({
      url: `/api/v1/connections/video-host/callback?code=${encodeURIComponent(again.code)}&state=${again.state}`,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Channel alice is connected');
    const replay = await app.inject({ url: `/api/v1/connections/video-host/callback?code=x&state=${again.state}`, headers: { accept: 'text/html' } });
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['content-type']).toMatch(/^text\/html/);
    expect(replay.body).toContain('already used');
    const denied = await app.inject({ url: `/api/v1/connections/video-host/callback?error=access_denied&state=${state}x` });
    expect(denied.statusCode).toBe(400);
    expect(denied.json().error).toMatch(/unknown/);

    const list = await app.inject({ url: '/api/v1/connections', headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().connections.map((c: { status: string }) => c.status)).toEqual(['active', 'revoked']);
    expect(list.body).not.toMatch(/ya29\.|1\/\/|refresh|access_token/);

    const other = (await createSessionCall(ctx)).session_token;
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/connections/${id}`, headers: { authorization: `Bearer ${other}` } })).statusCode).toBe(404);
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/connections/${id}`, headers: auth });
    expect([del.statusCode, del.json()]).toEqual([200, { deleted: true }]);
  });
});
