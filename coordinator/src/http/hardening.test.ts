import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTES } from '@cutroom/proto';
import { buildAgentApp, buildApp } from '../app.ts';
import { loadCoordinatorConfig } from '../config.ts';
import { createLogger } from '../lib/logger.ts';
import type { LocalBlobStore } from '../storage/local-blob-store.ts';
import { enrolledAgentToken } from '../testing/agent-credential.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';

const transcribe = { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' };

describe('public listener hardening', () => {
  let ctx: EngineCtx;
  const apps: FastifyInstance[] = [];
  /** An app on the shared engine context with its own settings (rate-limit counters live in the app). */
  const build = async (env: Record<string, string> = {}, extra: Partial<Parameters<typeof buildApp>[0]> = {}) => {
    const config = loadCoordinatorConfig({ DATA_DIR: ctx.config.DATA_DIR, LOG_LEVEL: 'silent', ...env });
    const app = await buildApp({ ctx: { ...ctx, config }, healthChecks: {}, ...extra });
    apps.push(app);
    return app;
  };
  const logSink = () => {
    const sink = {
      out: '',
      stream: new Writable({
        write(chunk, _enc, done) {
          sink.out += chunk.toString();
          done();
        },
      }),
    };
    return sink;
  };
  beforeAll(async () => {
    ctx = await createEngineCtx();
  }, 60_000);
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('answers 429 with Retry-After past the session-creation limit per IP', async () => {
    const app = await build({ RATE_LIMIT_SESSIONS_PER_IP: '2', RATE_LIMIT_WINDOW_SECONDS: '60' });
    const post = () => app.inject({ method: 'POST', url: '/api/v1/sessions' });
    expect((await post()).statusCode).toBe(201);
    expect((await post()).statusCode).toBe(201);
    const limited = await post();
    expect(limited.statusCode).toBe(429);
    const after = Number(limited.headers['retry-after']);
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(60);
    expect(limited.json().error).toMatch(/too many requests/);
    // Another client IP has its own budget.
    expect((await app.inject({ method: 'POST', url: '/api/v1/sessions', remoteAddress: '10.1.2.3' })).statusCode).toBe(201);
  });

  it('limits job creation per session and per IP', async () => {
    const app = await build({ RATE_LIMIT_PER_SESSION: '2', RATE_LIMIT_PER_IP: '3' });
    const token = async () => (await app.inject({ method: 'POST', url: '/api/v1/sessions' })).json().session_token as string;
    const [a, b] = [await token(), await token()];
    const create = (t: string) => app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${t}` }, payload: transcribe });
    expect((await create(a)).statusCode).toBe(201);
    expect((await create(a)).statusCode).toBe(201);
    const perSession = await create(a);
    expect(perSession.statusCode).toBe(429);
    expect(perSession.headers['retry-after']).toBeDefined();
    // Session b has its own budget, but the IP's third job creation is the last one it gets.
    expect((await create(b)).statusCode).toBe(429); // a's 429 counted against the IP too (4 > 3)
  });

  it('trusts no proxy by default: X-Forwarded-For cannot pick a fresh rate-limit bucket', async () => {
    expect(loadCoordinatorConfig({}).TRUST_PROXY).toBe(false);
    const app = await build({ RATE_LIMIT_SESSIONS_PER_IP: '1' });
    const post = (xff: string) => app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { 'x-forwarded-for': xff } });
    expect((await post('1.1.1.1')).statusCode).toBe(201);
    expect((await post('2.2.2.2')).statusCode).toBe(429);
  });

  it('takes client IPs from X-Forwarded-For when TRUST_PROXY names the proxy', async () => {
    const app = await build({ RATE_LIMIT_SESSIONS_PER_IP: '1', TRUST_PROXY: '127.0.0.1' });
    const post = (xff: string) => app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { 'x-forwarded-for': xff } });
    expect((await post('1.1.1.1')).statusCode).toBe(201);
    expect((await post('2.2.2.2')).statusCode).toBe(201);
    expect((await post('1.1.1.1')).statusCode).toBe(429);
  });

  it('declares 429 in /openapi.json where it can happen, and only there', async () => {
    const app = await build();
    await app.ready();
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    for (const [path, method] of [
      ['/api/v1/sessions', 'post'],
      ['/api/v1/jobs', 'post'],
      ['/api/v1/jobs/{id}/upload-url', 'get'],
      ['/api/v1/jobs/{id}/complete-upload', 'post'],
      ['/api/v1/jobs/{id}/checkout', 'post'],
      ['/api/v1/jobs/{id}/process', 'post'],
      ['/api/test', 'get'],
    ] as const) {
      expect(doc.paths[path]![method]!.responses['429']?.description, `${method} ${path}`).toMatch(/Retry-After/);
    }
    expect(doc.paths['/api/v1/jobs/{id}']!.get!.responses['429']).toBeUndefined();
    expect(doc.paths['/api/v1/sessions/me']!.get!.responses['429']).toBeUndefined();
  });

  it('sets connection and request timeouts on the server', async () => {
    const app = await build({ HTTP_CONNECTION_TIMEOUT_MS: '45000', HTTP_REQUEST_TIMEOUT_MS: '90000' });
    expect(app.server.timeout).toBe(45_000);
    expect(app.server.requestTimeout).toBe(90_000);
    const defaults = await build();
    expect(defaults.server.timeout).toBe(120_000);
    expect(defaults.server.requestTimeout).toBe(300_000);
  });

  it('sends security headers on every answer: success, error, 404, 429, router error', async () => {
    const app = await build({ RATE_LIMIT_SESSIONS_PER_IP: '1' });
    const answers = [
      await app.inject({ method: 'POST', url: '/api/v1/sessions' }),
      await app.inject({ method: 'POST', url: '/api/v1/sessions' }),
      await app.inject({ method: 'GET', url: '/api/v1/sessions/me' }),
      await app.inject({ method: 'GET', url: '/no/such/route' }),
      await app.inject({ method: 'GET', url: '/openapi.json' }),
      await app.inject({ method: 'GET', url: '/api/v1/jobs/%zz' }), // a router error: sent before any hook
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([201, 429, 401, 404, 200, 400]);
    for (const a of answers) {
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['x-frame-options']).toBe('DENY');
      expect(a.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(a.headers['strict-transport-security']).toMatch(/max-age=/);
      expect(a.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('hides why a dependency fails from the public /health, and logs it', async () => {
    const sink = logSink();
    const app = await buildApp({
      // Per-request lines are logged at debug level.
      ctx: { ...ctx, logger: createLogger('debug', 'test', sink.stream) },
      healthChecks: {
        database: async () => {
          throw new Error('password authentication failed for user "cutroom" at db.internal:5432');
        },
        nats: async () => {},
      },
    });
    apps.push(app);
    const r = await app.inject({ method: 'GET', url: '/health' });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({ status: 'degraded', checks: { database: 'failing', nats: 'ok' } });
    expect(r.body).not.toMatch(/password|db\.internal|cutroom"/);
    expect(sink.out).toContain('password authentication failed');
  });

  it('keeps signatures and checkout ids out of request logs', async () => {
    const sink = logSink();
    const app = await buildApp({
      // Per-request lines are logged at debug level.
      ctx: { ...ctx, logger: createLogger('debug', 'test', sink.stream) },
      healthChecks: {},
      localBlobs: ctx.blobs as LocalBlobStore,
    });
    apps.push(app);
    await app.inject({ method: 'GET', url: '/api/v1/checkout/complete?session_id=cs_live_SECRETCHECKOUT' });
    await app.inject({ method: 'GET', url: '/blobs/jobs/x/source?op=get&exp=1&sig=SECRETSIGNATURE' });
    await app.inject({
      method: 'GET',
      url: '/api/v1/jobs/x/outputs/t/download?format=srt&X-Amz-Signature=SECRETAMZ',
      headers: { authorization: 'Bearer crs_SECRETTOKEN' },
    });
    expect(sink.out).toContain('incoming request');
    expect(sink.out).not.toMatch(/SECRETCHECKOUT|SECRETSIGNATURE|SECRETAMZ|SECRETTOKEN/);
    expect(sink.out).toContain('/api/v1/checkout/complete?session_id=[redacted]');
    expect(sink.out).toContain('format=srt');
  });

  it('does not serve agent routes on the public listener when they are split off', async () => {
    const publicApp = await build({}, { agentRoutes: 'elsewhere' });
    const agentApp = await buildAgentApp({ ctx, healthChecks: {} });
    apps.push(agentApp);
    const agentToken = await enrolledAgentToken(ctx, 'a1');
    const register = {
      v: 1,
      agent_id: 'a1',
      version: 'test',
      hostname: 'h',
      ffmpeg: { version: '7', encoders: [], nvenc: false },
      cuda: { available: false, devices: [] },
      whisper: { models: ['tiny.en'], device: 'cpu', compute_type: 'int8' },
      free_disk_bytes: 1,
      work_kinds: ['transcribe'],
    };
    for (const url of Object.values(AGENT_ROUTES)) {
      const r = await publicApp.inject({ method: 'POST', url, headers: { authorization: `Bearer ${agentToken}` }, payload: {} });
      expect(r.statusCode, url).toBe(404);
    }
    expect((await agentApp.inject({ method: 'POST', url: AGENT_ROUTES.register, payload: register })).statusCode).toBe(401);
    const ok = await agentApp.inject({ method: 'POST', url: AGENT_ROUTES.register, headers: { authorization: `Bearer ${agentToken}` }, payload: register });
    expect(ok.statusCode, ok.body).toBe(200);
    // The agent listener serves nothing of the public API.
    expect((await agentApp.inject({ method: 'POST', url: '/api/v1/sessions' })).statusCode).toBe(404);
  });

  it('names why a dependency fails on the agent listener /health (internal network only)', async () => {
    const agentApp = await buildAgentApp({
      ctx,
      healthChecks: {
        database: async () => {
          throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
        },
      },
    });
    apps.push(agentApp);
    const r = await agentApp.inject({ method: 'GET', url: '/health' });
    expect(r.statusCode).toBe(503);
    expect(r.json().checks.database).toBe('failing: connect ECONNREFUSED 10.0.0.5:5432');
  });
});
