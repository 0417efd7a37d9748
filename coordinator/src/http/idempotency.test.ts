import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { idempotencyKeys } from '../db/schema.ts';
import { claimKey } from '../idempotency/store.ts';
import { addMs } from '../lib/clock.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { credentialOf, installIdempotency, scopeOf } from './idempotency.ts';

const transcribe = { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' };

describe('Idempotency-Key on the REST API', () => {
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

  const newSession = async () => (await app.inject({ method: 'POST', url: '/api/v1/sessions' })).json().session_token as string;

  it('two anonymous callers with one Idempotency-Key get two sessions', async () => {
    const post = () => app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { 'idempotency-key': 'shared-key' } });
    const [a, b] = [await post(), await post()];
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().session_token).not.toBe(a.json().session_token);
    expect(b.json().session_id).not.toBe(a.json().session_id);
    // Even a caller that sends a bearer never gets a session token replayed.
    const withBearer = () =>
      app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { 'idempotency-key': 'shared-key', authorization: `Bearer ${a.json().session_token}` } });
    expect((await withBearer()).json().session_token).not.toBe((await withBearer()).json().session_token);
  });

  it("scopes a key to the caller's session: the same key from another session runs anew", async () => {
    const [alice, bob] = [await newSession(), await newSession()];
    const post = (token: string) =>
      app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'job-key' }, payload: transcribe });
    const first = await post(alice);
    const again = await post(alice);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().job_id).toBe(first.json().job_id);
    const other = await post(bob);
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json().job_id).not.toBe(first.json().job_id);
  });

  it('does not store a request that carries no credential', async () => {
    const before = (await ctx.db.select().from(idempotencyKeys)).length;
    const r = await app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { 'idempotency-key': 'anon-key' }, payload: transcribe });
    expect(r.statusCode).toBe(401);
    expect((await ctx.db.select().from(idempotencyKeys)).length).toBe(before);
  });

  it('stores answers sealed: no job id or token in the table in plaintext', async () => {
    const token = await newSession();
    const r = await app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'sealed-key' },
      payload: transcribe,
    });
    const table = JSON.stringify(await ctx.db.select().from(idempotencyKeys));
    expect(table).not.toContain(r.json().job_id);
    expect(table).not.toContain(token);
  });

  it('releases a key left in progress by a crash after the lock bound, not before', async () => {
    const token = await newSession();
    const post = () =>
      app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'crash-key' }, payload: transcribe });
    // A first request claimed the key, then the process crashed: its answer was never stored.
    const scope = scopeOf(credentialOf({ headers: { authorization: `Bearer ${token}` } })!, 'POST', '/api/v1/jobs');
    const requestHash = createHash('sha256').update(JSON.stringify(transcribe)).digest('hex');
    const now = ctx.clock.now();
    await claimKey(ctx.db, { scope, key: 'crash-key', requestHash, now, lockUntil: addMs(now, ctx.config.IDEMPOTENCY_LOCK_SECONDS * 1000) });
    const busy = await post();
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toMatch(/still in progress/);
    ctx.clock.advance(ctx.config.IDEMPOTENCY_LOCK_SECONDS * 1000);
    const retried = await post();
    expect(retried.statusCode).toBe(201);
    expect((await post()).json().job_id).toBe(retried.json().job_id);
  });

  it('forgets an answer after IDEMPOTENCY_TTL_HOURS', async () => {
    const token = await newSession();
    const post = () =>
      app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'ttl-key' }, payload: transcribe });
    const first = await post();
    ctx.clock.advance(ctx.config.IDEMPOTENCY_TTL_HOURS * 3600_000 - 1000);
    expect((await post()).json().job_id).toBe(first.json().job_id);
    ctx.clock.advance(1000);
    const later = await post();
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().job_id).not.toBe(first.json().job_id);
  });
});

describe('Idempotency-Key with billing on', () => {
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createEngineCtx({
      PAYMENT_CHALLENGE_SECRET: 'test-challenge-secret-0123456789abcdef',
      CHAIN_RPC_URL: 'http://127.0.0.1:9',
      CHAIN_TOKEN_ADDRESS: `0x${'a'.repeat(40)}`,
      CHAIN_RELAYER_KEY: `0x${'1'.repeat(64)}`,
    });
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('replays a 402 with its challenge headers while the challenge lives', async () => {
    const token = (await app.inject({ method: 'POST', url: '/api/v1/sessions' })).json().session_token as string;
    const auth = { authorization: `Bearer ${token}` };
    const job = (await app.inject({ method: 'POST', url: '/api/v1/jobs', headers: auth, payload: transcribe })).json();
    expect(job.payment_status).toBe('pending');
    const complete = () =>
      app.inject({ method: 'POST', url: `/api/v1/jobs/${job.job_id}/complete-upload`, headers: { ...auth, 'idempotency-key': 'pay-key' } });
    const first = await complete();
    expect(first.statusCode).toBe(402);
    expect(first.headers['www-authenticate']).toBeDefined();
    expect(first.headers['payment-required']).toBeDefined();
    const replay = await complete();
    expect(replay.statusCode).toBe(402);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['www-authenticate']).toEqual(first.headers['www-authenticate']);
    expect(replay.headers['payment-required']).toBe(first.headers['payment-required']);
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.headers['cache-control']).toBe('no-store');
    expect(replay.body).toBe(first.body);
    // Past the challenge's lifetime the stored 402 is not replayed: a fresh challenge is issued.
    ctx.clock.advance(ctx.config.PAYMENT_CHALLENGE_TTL_SECONDS * 1000);
    const fresh = await complete();
    expect(fresh.statusCode).toBe(402);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.headers['www-authenticate']).not.toEqual(first.headers['www-authenticate']);
  });

  it('an anonymous request for payment (no credential yet) is not stored; its paid retry runs', async () => {
    const post = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { 'idempotency-key': 'anon-pay', ...headers }, payload: transcribe });
    const challenge = await post({});
    expect(challenge.statusCode).toBe(402);
    expect((await post({})).headers['idempotent-replayed']).toBeUndefined();
  });
});

/** The mechanism on its own: a route that mints a token, as anonymous paid creation does. */
describe('answers bound to the credential', () => {
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createEngineCtx();
    app = Fastify();
    installIdempotency(app, { db: ctx.db, clock: ctx.clock, ttlMs: 3600_000, lockMs: 60_000, challengeTtlMs: 600_000 });
    app.post('/mint', async (_req, reply) => reply.status(201).send({ session_token: `crs_${randomBytes(16).toString('hex')}` }));
    app.post('/boom', async () => {
      throw new Error('down');
    });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  const mint = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/mint', headers: { 'idempotency-key': 'k', ...headers }, payload: {} });

  it('replays a minted token only to the same payment credential, and never stores it in plaintext', async () => {
    const first = await mint({ authorization: 'Payment credential-of-alice' });
    const again = await mint({ authorization: 'Payment credential-of-alice' });
    expect(again.json().session_token).toBe(first.json().session_token);
    const mallory = await mint({ authorization: 'Payment credential-of-mallory' });
    expect(mallory.json().session_token).not.toBe(first.json().session_token);
    // x402: the signature is the credential.
    const x1 = await mint({ 'payment-signature': 'x402-signature-1' });
    const x2 = await mint({ 'payment-signature': 'x402-signature-2' });
    expect(x2.json().session_token).not.toBe(x1.json().session_token);
    expect((await mint({ 'payment-signature': 'x402-signature-1' })).json().session_token).toBe(x1.json().session_token);
    const table = JSON.stringify(await ctx.db.select().from(idempotencyKeys));
    for (const r of [first, mallory, x1, x2]) expect(table).not.toContain(r.json().session_token);
    expect(table).not.toContain('credential-of-alice');
  });

  it('releases the key after a 5xx so the retry runs', async () => {
    const boom = () => app.inject({ method: 'POST', url: '/boom', headers: { 'idempotency-key': 'b', authorization: 'Bearer x' }, payload: {} });
    expect((await boom()).statusCode).toBe(500);
    const second = await boom();
    expect(second.statusCode).toBe(500);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a malformed key and a different body under the same key', async () => {
    expect((await app.inject({ method: 'POST', url: '/mint', headers: { 'idempotency-key': 'a b', authorization: 'Bearer y' }, payload: {} })).statusCode).toBe(
      400,
    );
    const headers = { 'idempotency-key': 'body-key', authorization: 'Bearer y' };
    expect((await app.inject({ method: 'POST', url: '/mint', headers, payload: { a: 1 } })).statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: '/mint', headers, payload: { a: 2 } })).statusCode).toBe(422);
  });
});
