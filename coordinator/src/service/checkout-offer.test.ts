import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Challenge, Credential } from 'mppx';
import { Mppx, stripe as stripeClient } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader, startStripeFake, type StripeFake } from '../../../test/fakes/stripe/index.ts';
import { buildApp } from '../app.ts';
import { jobOutputs, jobs, sessions } from '../db/schema.ts';
import { createEngineCtx, jobRow, type EngineCtx } from '../testing/engine-ctx.ts';
import { cardWebhookCall, createSessionCall } from './index.ts';

const WEBHOOK_SECRET = 'whsec_checkout_offer_test_0123456789';

/**
 * Billing on with the card rail (the processor fake behind the official client), both transports
 * in process: every paid MCP tool's -32042 offers the hosted checkout where the card rail can take
 * the price; a checkout offered to a caller without a session comes with the token of the session
 * created to own its job (REST's 402 of paid creation, MCP's -32042), and only there; a payment
 * method we do not take answers the spec's `{error}` (with problem+json beside it).
 */
describe('hosted checkout offered on every paid surface (card rail, PGlite)', () => {
  let ctx: EngineCtx;
  let fake: StripeFake;
  let app: FastifyInstance;
  beforeAll(async () => {
    fake = await startStripeFake();
    ctx = await createEngineCtx({
      CARD_SECRET_KEY: fake.secretKey,
      CARD_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CARD_API_BASE: fake.url,
      CARD_NETWORK_ID: 'profile_cutroom_test',
      PAYMENT_CHALLENGE_SECRET: 'checkout-offer-test-challenge-secret-0123456789',
      RATE_LIMIT_SESSIONS_PER_IP: '100000',
      RATE_LIMIT_PER_SESSION: '100000',
      RATE_LIMIT_PER_IP: '100000',
    });
    // Stock clients check a challenge's expiry on the wall clock: start the manual clock there.
    ctx.clock.advance(Date.now() - ctx.clock.now().getTime());
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await fake?.stop();
  });

  let nextId = 1;
  /** One tools/call over POST /mcp: the result, or the JSON-RPC error. */
  async function tool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
      payload: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, ...(meta && { _meta: meta }) } },
    });
    const messages = res.body
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    return messages.at(-1) as { result?: Record<string, any>; error?: { code: number; message: string; data: Record<string, any> } };
  }
  async function paymentRequired(name: string, args: Record<string, unknown>) {
    const answer = await tool(name, args);
    expect(answer.error, JSON.stringify(answer.result)).toBeDefined();
    expect(answer.error!.code, answer.error!.message).toBe(-32042);
    return answer.error!;
  }
  const rest = (method: 'GET' | 'POST', url: string, opts: { token?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
    app.inject({
      method,
      url,
      headers: { ...(opts.token && { authorization: `Bearer ${opts.token}` }), ...opts.headers },
      ...(opts.json !== undefined && { payload: opts.json as Record<string, unknown> }),
    });
  /** The payer on the hosted page, then the processor's signed webhook as the coordinator receives it. */
  async function payCheckout(csId: string): Promise<void> {
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${csId}/pay`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { event_id: string };
    const raw = JSON.stringify(fake.state.events.find((e) => e.id === out.event_id)!);
    const applied = await cardWebhookCall(ctx, Buffer.from(raw), signatureHeader(raw, WEBHOOK_SECRET, Math.floor(ctx.clock.now().getTime() / 1000)));
    expect(applied).toEqual({ received: true, applied: true });
  }
  const checkoutOf = (csId: string) => fake.state.checkoutSessions.get(csId);

  /** A completed transcribe parent (video, 9 s) of the session, with its source and its transcript (words v2) stored. */
  async function completedParent(sessionId: string): Promise<string> {
    const id = randomUUID();
    const now = ctx.clock.now();
    const words = Array.from({ length: 8 }, (_, i) => ({ start: 1 + i * 0.5, end: 1.3 + i * 0.5, word: `w${i}${i % 4 === 3 ? '.' : ''}`, probability: 0.9 }));
    const transcript = { version: 2, language: 'en', duration: 9, segments: [{ id: 0, start: 1, end: 4.8, text: words.map((w) => w.word).join(' '), words }] };
    await ctx.db.insert(jobs).values({
      id,
      sessionId,
      jobType: 'transcribe',
      status: 'completed',
      paymentStatus: 'paid',
      originalFilename: 'talk.mov',
      contentType: 'video/quicktime',
      mediaKind: 'video',
      priceCents: 100,
      params: {},
      sourceKey: `jobs/${id}/source`,
      durationSeconds: 9,
      media: { duration_seconds: 9, has_video: true, has_audio: true, format_name: 'mov' },
      createdAt: now,
      updatedAt: now,
      completedAt: now,
      expiresAt: new Date(now.getTime() + 24 * 3600_000),
    });
    await ctx.blobs.put(`jobs/${id}/source`, Buffer.from('not really a video'), 'video/quicktime');
    await ctx.blobs.put(`jobs/${id}/outputs/a/transcript_words`, JSON.stringify(transcript), 'application/json');
    await ctx.db.insert(jobOutputs).values({
      id: randomUUID(),
      jobId: id,
      role: 'transcript',
      storageKey: `jobs/${id}/outputs/a/transcript_srt`,
      contentType: 'application/x-subrip',
      meta: { words_key: `jobs/${id}/outputs/a/transcript_words` },
      createdAt: now,
    });
    return id;
  }

  it("every paid MCP tool's -32042 about a job of the caller's session carries the job's hosted checkout_url (cuts and edits included)", async () => {
    const s = await createSessionCall(ctx);
    const session_token = s.session_token;
    const parent = await completedParent(s.session_id);
    const calls: [string, Record<string, unknown>][] = [
      ['transcribe', { filename: 'a.mp4', content_type: 'video/mp4' }],
      ['extract_clip', { source_job_id: parent, segments: [{ start: 1, end: 3 }] }],
      ['extract_vertical_clip', { source_job_id: parent, start: 1, end: 3 }],
      ['edit_from_transcript', { source_job_id: parent, edit: '[0001] w0 w1 w3.\n' }],
    ];
    for (const [name, args] of calls) {
      const err = await paymentRequired(name, { ...args, session_token });
      expect(err.data, name).toMatchObject({
        httpStatus: 402,
        job_id: expect.any(String),
        price_cents: expect.any(Number),
        checkout_url: expect.stringMatching(/^http/),
        card_checkout_session_id: expect.stringMatching(/^cs_/),
      });
      // The checkout pays exactly that job, at its price, and is the one POST /jobs/{id}/checkout answers.
      const cs = checkoutOf(err.data.card_checkout_session_id)!;
      expect(cs.metadata['job_id'], name).toBe(err.data.job_id);
      expect(cs.amount_total, name).toBe(err.data.price_cents);
      const again = await rest('POST', `/api/v1/jobs/${err.data.job_id}/checkout`, { token: session_token });
      expect(again.json(), name).toEqual({ checkout_url: err.data.checkout_url, card_checkout_session_id: err.data.card_checkout_session_id });
      // The stripe challenge pays the same job as the checkout.
      expect(err.data.challenges.find((c: { method: string }) => c.method === 'stripe').request, name).toMatchObject({ externalId: err.data.job_id });
    }
    // The gated calls of an unpaid upload job offer its checkout too.
    const created = await rest('POST', '/api/v1/jobs', {
      token: session_token,
      json: { job_type: 'transcribe', filename: 'b.wav', content_type: 'audio/wav' },
    });
    const { job_id, checkout_url } = created.json();
    for (const name of ['get_upload_url', 'complete_upload']) {
      const err = await paymentRequired(name, { job_id, session_token });
      expect(err.data, name).toMatchObject({ job_id, checkout_url });
    }
  });

  it('a paid cut is started by its hosted checkout: the next call is the poll, never the same call again', async () => {
    const s = await createSessionCall(ctx);
    const parent = await completedParent(s.session_id);
    const err = await paymentRequired('extract_vertical_clip', { source_job_id: parent, start: 2, end: 4, session_token: s.session_token });
    expect(err.data.next).toMatch(/get_job_status/);
    await payCheckout(err.data.card_checkout_session_id);
    expect(await jobRow(ctx, err.data.job_id)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid', amountPaidCents: 50 });
    const landing = await rest('GET', `/api/v1/checkout/complete?session_id=${err.data.card_checkout_session_id}`);
    expect(landing.json()).toMatchObject({
      job_id: err.data.job_id,
      payment_status: 'paid',
      next: expect.stringMatching(new RegExp(`^GET /api/v1/jobs/${err.data.job_id} `)),
    });
  });

  it('a paid MCP tool called without a session: the -32042 offers the checkout and the token of the session that owns its job, to that caller only', async () => {
    for (const [name, args] of [
      ['transcribe', { filename: 'a.mp4', content_type: 'video/mp4' }],
      ['find_clips', { filename: 'a.mp4', content_type: 'video/mp4' }],
      ['clips_from_video', { filename: 'a.mp4', content_type: 'video/mp4', max_clips: 2 }],
    ] as const) {
      const err = await paymentRequired(name, args);
      expect(err.data, name).toMatchObject({
        job_id: expect.any(String),
        checkout_url: expect.stringMatching(/^http/),
        card_checkout_session_id: expect.stringMatching(/^cs_/),
        session_id: expect.any(String),
        session_token: expect.any(String),
      });
      expect(err.message, name).toMatch(/checkout_url/);
      expect(err.data.next, name).toMatch(/get_upload_url/);
      // The challenges are still paid creation's (bound to the request, no job): a stock MPP client pays those.
      expect(
        err.data.challenges.map((c: { method: string }) => c.method),
        name,
      ).toEqual(['stripe']);
      expect(err.data.challenges[0].request.externalId, name).toBeUndefined();
      const { job_id, session_token, card_checkout_session_id } = err.data;
      expect(checkoutOf(card_checkout_session_id)!.metadata['job_id'], name).toBe(job_id);
      expect(await jobRow(ctx, job_id), name).toMatchObject({ sessionId: err.data.session_id, status: 'pending', paymentStatus: 'pending' });

      // Knowing the job id alone reaches nothing, and nothing hands the token out again.
      const stranger = await createSessionCall(ctx);
      for (const answer of [
        await tool('get_job_status', { job_id }),
        await tool('get_upload_url', { job_id }),
        await tool('get_job_status', { job_id, session_token: stranger.session_token }),
        await tool('get_upload_url', { job_id, session_token: stranger.session_token }),
      ]) {
        expect(answer.result?.isError, name).toBe(true);
        expect(JSON.stringify(answer), name).not.toContain(session_token);
      }
      const landing = await rest('GET', `/api/v1/checkout/complete?session_id=${card_checkout_session_id}`);
      expect(landing.body, name).not.toContain(session_token);

      // The token reaches the job; paid at the checkout, the upload goes on with it.
      const status = await tool('get_job_status', { job_id, session_token });
      expect(status.result?.structuredContent, name).toMatchObject({ job_id, status: 'pending', payment_status: 'pending' });
      await payCheckout(card_checkout_session_id);
      const upload = await tool('get_upload_url', { job_id, session_token });
      expect(upload.result?.structuredContent, name).toMatchObject({ job_id, payment_status: 'paid', upload_url: expect.stringMatching(/^http/) });
    }
  });

  it('REST paid creation without a session writes nothing on its 402 (no orphan job, session or checkout per stock-client probe); its challenge creates the job', async () => {
    const body = { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' };
    const count = async () => ({
      jobs: (await ctx.db.select({ id: jobs.id }).from(jobs)).length,
      sessions: (await ctx.db.select({ id: sessions.id }).from(sessions)).length,
      checkouts: fake.state.checkoutSessions.size,
    });
    const before = await count();
    const res = await rest('POST', '/api/v1/jobs', { json: body });
    expect(res.statusCode).toBe(402);
    expect(res.json()).not.toHaveProperty('checkout_url');
    expect(res.json()).not.toHaveProperty('session_token');
    expect(await count()).toEqual(before);

    // The stock client answers the 402's challenge: paid creation, a job and a session of its own.
    const challenged = new Response('{}', { status: 402, headers: [['www-authenticate', String(res.headers['www-authenticate'])]] });
    const spt = fake.createSharedPaymentToken({ maxAmount: 1000 }).id;
    const credential = await Mppx.create({
      methods: [stripeClient({ paymentMethod: 'pm_card_visa', createToken: async () => spt })],
      polyfill: false,
    }).createCredential(challenged);
    const paid = await rest('POST', '/api/v1/jobs', { json: body, headers: { authorization: credential } });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({ payment_status: 'paid', session_token: expect.any(String) });
  });

  it("a credential for a payment method we do not take answers 400 with the spec's {error} (REST and MCP), problem+json beside it", async () => {
    const s = await createSessionCall(ctx);
    const created = await rest('POST', '/api/v1/jobs', {
      token: s.session_token,
      json: { job_type: 'transcribe', filename: 'c.wav', content_type: 'audio/wav' },
    });
    const jobId = created.json().job_id as string;
    const probe = await rest('GET', `/api/v1/jobs/${jobId}/upload-url`, { token: s.session_token });
    expect(probe.statusCode).toBe(402);
    const [offered] = Challenge.fromResponseList(
      new Response('{}', { status: 402, headers: [['www-authenticate', String(probe.headers['www-authenticate'])]] }),
    );
    const foreign = Credential.serialize(Credential.from({ challenge: { ...offered!, method: 'tempo' }, payload: { spt: 'spt_x' } }));
    const refused = await rest('GET', `/api/v1/jobs/${jobId}/upload-url`, { headers: { authorization: foreign } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      error: expect.stringMatching(/payment method tempo is not accepted/),
      type: 'https://paymentauth.org/problems/method-unsupported',
      status: 400,
      detail: expect.any(String),
    });

    const err = await paymentRequired('get_upload_url', { job_id: jobId, session_token: s.session_token });
    const challenge = err.data.challenges.find((c: { method: string }) => c.method === 'stripe');
    const answer = await tool(
      'get_upload_url',
      { job_id: jobId, session_token: s.session_token },
      {
        'org.paymentauth/credential': { challenge: { ...challenge, method: 'tempo' }, payload: { spt: 'spt_x' } },
      },
    );
    expect(answer.error?.data).toMatchObject({
      httpStatus: 400,
      problem: {
        type: 'https://paymentauth.org/problems/method-unsupported',
        status: 400,
        error: expect.stringMatching(/payment method tempo is not accepted/),
      },
    });
  });

  it('the smoke test (0.01, below the card minimum) offers no card price: no stripe challenge, no checkout_url, card null in mpp.json', async () => {
    const smoke = await tool('mpp_smoke_test', {});
    expect(smoke.error?.data.challenges.map((c: { method: string }) => c.method)).toEqual([]);
    expect(smoke.error?.data.checkout_url).toBeUndefined();
    const mpp = (await rest('GET', '/.well-known/mpp.json')).json();
    expect(mpp.prices.find((p: { product: string }) => p.product === 'smoke_test')).toMatchObject({ card: null, note: expect.stringMatching(/card minimum/) });
    for (const row of mpp.prices) if (row.card) expect(Number(row.card.amount), row.product).toBeGreaterThanOrEqual(50);
    const openapi = (await rest('GET', '/openapi.json')).json();
    expect(openapi.paths['/api/test'].get['x-payment-info'].offers.map((o: { method: string }) => o.method)).not.toContain('stripe');
  });
});
