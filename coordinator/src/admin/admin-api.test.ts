import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBootstrapOperator } from '../operators/operator-auth.ts';
import type { EngineCtx } from '../testing/engine-ctx.ts';
import { startTestApp } from '../testing/test-app.ts';

const ADMIN = `cro_${'t'.repeat(40)}`;
let t: Awaited<ReturnType<typeof startTestApp>>;
let app: FastifyInstance;
let ctx: EngineCtx;
beforeAll(async () => {
  t = await startTestApp();
  ({ app, ctx } = t);
  await ensureBootstrapOperator(ctx, ADMIN);
}, 60_000);
afterAll(async () => {
  await t.close();
});

const query = (path: string, input: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: `/admin/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, headers });
const mutate = (path: string, input: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/admin/trpc/${path}`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(input) });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('admin API (tRPC on the coordinator)', () => {
  it('refuses anyone who is not an operator: no credential, a caller’s session token, a wrong token', async () => {
    const session = await app.inject({ method: 'POST', url: '/api/v1/sessions' });
    const callerToken = session.json().session_token as string;
    for (const headers of [{}, bearer(callerToken), bearer(`cro_${'x'.repeat(40)}`)]) {
      const r = await query('agents.list', undefined, headers);
      expect(r.statusCode).toBe(401);
      expect(r.json().error.message).toMatch(/log in with an operator token/);
      expect((await mutate('jobs.cancel', { job_id: crypto.randomUUID() }, headers)).statusCode).toBe(401);
    }
  });

  it('answers an operator by Bearer token, and by the console cookie after log-in', async () => {
    expect((await query('operators.me', undefined, bearer(ADMIN))).json().result.data).toEqual({ name: 'admin' });

    expect((await app.inject({ method: 'POST', url: '/admin/api/login', payload: { token: 'nope' } })).statusCode).toBe(401);
    const login = await app.inject({ method: 'POST', url: '/admin/api/login', payload: { token: ADMIN } });
    expect(login.statusCode).toBe(200);
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^cutroom_admin=[^;]+; Path=\/admin; HttpOnly; SameSite=Strict; Expires=/);
    const cookie = setCookie.split(';')[0]!;
    expect((await query('operators.me', undefined, { cookie })).json().result.data).toEqual({ name: 'admin' });

    await app.inject({ method: 'POST', url: '/admin/api/logout', headers: { cookie } });
    expect((await query('operators.me', undefined, { cookie })).statusCode).toBe(401);
  });

  it('log-in has its own bucket and backs off after each failure: a token guesser waits, callers creating sessions do not', async () => {
    const login = (token: string) => app.inject({ method: 'POST', url: '/admin/api/login', payload: { token }, remoteAddress: '198.51.100.7' });
    const newSession = () => app.inject({ method: 'POST', url: '/api/v1/sessions', remoteAddress: '198.51.100.7' });
    expect((await login('guess-1')).statusCode).toBe(401);
    // One mistake costs nothing; from the second on the address waits 1 s, 2, 4 …, even with the right token.
    expect((await login('guess-2')).statusCode).toBe(401);
    const early = await login(ADMIN);
    expect(early.statusCode).toBe(429);
    expect(early.headers['retry-after']).toBe('1');
    expect(early.json().error).toMatch(/too many failed log-ins/);
    // Session creation from the address is unaffected.
    expect((await newSession()).statusCode).toBe(201);
    ctx.clock.advance(1_000);
    expect((await login('guess-3')).statusCode).toBe(401);
    expect((await login(ADMIN)).headers['retry-after']).toBe('2');
    ctx.clock.advance(2_000);
    expect((await login(ADMIN)).statusCode).toBe(200);
    // Cleared by the success; and the session bucket spent from this address does not lock the operator out.
    for (let i = 0; i < ctx.config.RATE_LIMIT_SESSIONS_PER_IP; i++) await newSession();
    expect((await newSession()).statusCode).toBe(429);
    expect((await login(ADMIN)).statusCode).toBe(200);
  });

  it('maps service refusals to their HTTP meaning and records operators’ actions under their own names', async () => {
    const missing = await mutate('jobs.cancel', { job_id: crypto.randomUUID(), note: 'x' }, bearer(ADMIN));
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.data.app_code).toBe('not_found');
    expect((await mutate('agents.setTags', { agent_id: 'nobody', tags: ['gpu'] }, bearer(ADMIN))).statusCode).toBe(404);
    expect((await mutate('jobs.cancel', { job_id: 'not-a-uuid' }, bearer(ADMIN))).statusCode).toBe(400);

    const created = await mutate('operators.create', { name: 'bob' }, bearer(ADMIN));
    const bobToken = created.json().result.data.token as string;
    expect(bobToken).toMatch(/^cro_/);
    const minted = await mutate('enrollment.mint', { agent_id: 'gpu-3', tags: ['gpu'] }, bearer(bobToken));
    expect(minted.json().result.data).toMatchObject({ agent_id: 'gpu-3', tags: ['gpu'], command: expect.stringContaining('AGENT_ENROLLMENT_TOKEN=cre_') });
    const actions = (await query('operators.actions', { limit: 10 }, bearer(ADMIN))).json().result.data as { operator: string; action: string }[];
    expect(actions.slice(0, 2).map((a) => [a.operator, a.action])).toEqual([
      ['bob', 'enrollment.mint'],
      ['admin', 'operator.create'],
    ]);
    await mutate('operators.revoke', { name: 'bob' }, bearer(ADMIN));
    expect((await query('operators.me', undefined, bearer(bobToken))).statusCode).toBe(401);
    expect((await mutate('operators.revoke', { name: 'admin' }, bearer(ADMIN))).json().error.message).toMatch(/cannot revoke yourself/);
  });

  it('answers the farm, queue, jobs and money views', async () => {
    const h = bearer(ADMIN);
    expect((await query('agents.list', undefined, h)).json().result.data).toEqual([]);
    const queue = (await query('queue.stats', undefined, h)).json().result.data;
    expect(queue.map((q: { kind: string }) => q.kind).sort()).toEqual(['cut', 'transcribe', 'understand']);
    expect((await query('jobs.list', { limit: 5 }, h)).json().result.data).toMatchObject({ jobs: expect.any(Array) });
    expect((await query('money.summary', { days: 7 }, h)).json().result.data).toMatchObject({ days: [], refunds_failed: [] });
  });

  it('serves the console page (or says how to build it) with a CSP that allows only its own files, hidden from /openapi.json', async () => {
    const page = await app.inject({ method: 'GET', url: '/admin/jobs/123' });
    expect([200, 503]).toContain(page.statusCode);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect((await app.inject({ method: 'GET', url: '/admin/assets/..%2Fsecrets.json' })).statusCode).toBe(404);
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
  });
});
