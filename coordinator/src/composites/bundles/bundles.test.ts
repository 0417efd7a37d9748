import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClipCandidate, ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { signatureHeader, startStripeFake, type StripeFake } from '../../../../test/fakes/stripe/index.ts';
import { completeAttempt, failAttempt } from '../../agents/attempts.ts';
import { claimJob } from '../../agents/claim.ts';
import { jobOutputs, jobs, ledgerEntries, outbox } from '../../db/schema.ts';
import { processRefunds } from '../../payments/refunder.ts';
import { cardWebhookCall, createBundleCall, createSessionCall, getJobCall, processCall } from '../../service/index.ts';
import { addAgent, createEngineCtx, jobRow, type EngineCtx } from '../../testing/engine-ctx.ts';

const WEBHOOK_SECRET = 'whsec_bundle_test_0123456789';

type Creds = Awaited<ReturnType<typeof credsOf>>;
async function credsOf(ctx: EngineCtx) {
  const s = await createSessionCall(ctx);
  return {
    bearer: s.session_token,
    authorization: `Bearer ${s.session_token}`,
    paymentSignature: undefined,
    resourceUrl: 'http://test/',
    sessionId: s.session_id,
  };
}

function candidate(id: string, rank: number, start: number, end: number): ClipCandidate {
  const c = { stands_alone: 70, hook_strength: 60, coherence: 80, information_density: 50, pace: 90, silence: 95 };
  return {
    id,
    rank,
    start,
    end,
    duration: end - start,
    first_sentence: rank * 10,
    last_sentence: rank * 10 + 9,
    title: `Moment ${id}`,
    hook: 'Why would anyone do this?',
    summary: 'A moment of the talk.',
    texts_source: { title: 'extractive', hook: 'extractive', summary: 'extractive' },
    text: 'Why would anyone do this? Because.',
    score: 72,
    score_breakdown: { ...c, weights: { stands_alone: 0.25, hook_strength: 0.2, coherence: 0.2, information_density: 0.15, pace: 0.1, silence: 0.1 } },
    reason: 'strong coherence (0.81), weak density (3.1 words/s)',
    match: null,
  };
}

/**
 * A completed find_clips parent of the caller's session: a 400 s video with its source stored
 * and a clips v1 document (candidates c1 [10, 140] and c2 [150, 300]) as its `clips` output.
 */
async function findClipsParent(ctx: EngineCtx, c: Creds, opts: { type?: 'find_clips' | 'transcribe'; expiresInMs?: number } = {}): Promise<string> {
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.insert(jobs).values({
    id,
    sessionId: c.sessionId,
    jobType: opts.type ?? 'find_clips',
    status: 'completed',
    paymentStatus: 'paid',
    originalFilename: 'talk.mp4',
    contentType: 'video/mp4',
    mediaKind: 'video',
    priceCents: 200,
    params: {},
    sourceKey: `jobs/${id}/source`,
    durationSeconds: 400,
    media: { duration_seconds: 400, has_video: true, has_audio: true, format_name: 'mov,mp4' },
    createdAt: now,
    updatedAt: now,
    completedAt: now,
    expiresAt: new Date(now.getTime() + (opts.expiresInMs ?? 72 * 3600_000)),
  });
  await ctx.blobs.put(`jobs/${id}/source`, Buffer.from('not really a video'), 'video/mp4');
  const doc: ClipsV1 = {
    version: 1,
    mode: 'best',
    query: null,
    source: { duration: 400, language: 'en', sentences: 40 },
    generator: {
      embedder: 'all-MiniLM-L6-v2',
      text_generator: 'extractive',
      segmentation: { method: 'texttiling', window: 3, boundaries: [150] },
      timings_ms: { sentences: 1, embeddings: 1, segmentation: 1, candidates: 1, generation: 1, total: 5 },
    },
    notes: [],
    candidates: [candidate('c1', 1, 10, 140), candidate('c2', 2, 150, 300)],
  };
  const key = `jobs/${id}/outputs/a/clips`;
  await ctx.blobs.put(key, Buffer.from(JSON.stringify(doc)), 'application/json');
  await ctx.db.insert(jobOutputs).values({ id: randomUUID(), jobId: id, role: 'clips', storageKey: key, contentType: 'application/json', createdAt: now });
  return id;
}

describe('clip bundles, billing on (card through the processor fake, PGlite)', () => {
  let ctx: EngineCtx;
  let fake: StripeFake;

  beforeAll(async () => {
    fake = await startStripeFake();
    ctx = await createEngineCtx({
      CARD_SECRET_KEY: fake.secretKey,
      CARD_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CARD_API_BASE: fake.url,
      PAYMENT_CHALLENGE_SECRET: 'bundle-test-challenge-secret-0123456789',
    });
    fake.state.events.length = 0;
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await fake?.stop();
  });

  /** The paying customer on the hosted page, then the processor's signed webhook as the coordinator receives it. */
  async function payCheckout(csId: string): Promise<string> {
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${csId}/pay`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { event_id: string; payment_intent: { id: string } };
    const event = fake.state.events.find((e) => e.id === out.event_id)!;
    const raw = JSON.stringify(event);
    const applied = await cardWebhookCall(ctx, Buffer.from(raw), signatureHeader(raw, WEBHOOK_SECRET, Math.floor(ctx.clock.now().getTime() / 1000)));
    expect(applied).toEqual({ received: true, applied: true });
    return out.payment_intent.id;
  }

  const counts = async () => ({
    jobs: (await ctx.db.select({ id: jobs.id }).from(jobs)).length,
    ledger: (await ctx.db.select({ id: ledgerEntries.id }).from(ledgerEntries)).length,
    checkouts: fake.state.checkoutSessions.size,
  });

  it('refuses a bad bundle before anything is written or offered for payment, with a 4xx naming the problem', async () => {
    const c = await credsOf(ctx);
    const other = await credsOf(ctx);
    const parent = await findClipsParent(ctx, c);
    const foreign = await findClipsParent(ctx, other);
    const expired = await findClipsParent(ctx, c, { expiresInMs: -1000 });
    const transcribe = await findClipsParent(ctx, c, { type: 'transcribe' });
    const before = await counts();
    const create = (id: string, clips: unknown[], job_type = 'clips_vertical', who: Partial<Creds> = c) =>
      createBundleCall(ctx, { ...c, ...who }, id, { job_type, clips } as never, 'rest');

    await expect(create(parent, [{ candidate_id: 'c1' }, { candidate_id: 'c9' }])).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: 'clip 2: candidate_id c9 is not a candidate of the parent; its candidates are c1, c2',
    });
    await expect(
      create(
        parent,
        Array.from({ length: 6 }, () => ({ candidate_id: 'c1' })),
      ),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^clips takes 1-5 entries \(got 6\)/),
    });
    await expect(create(parent, [{ candidate_id: 'c2', profile: 'vidB-stories' }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^clip 1: profile vidB-stories takes clips of at most 60 s; this one is 150 s: .*; or run find_clips with target "short": its candidates \(15-60 s\) fit vidB-stories whole$/,
      ),
    });
    // A window of one's own gets no such hint: it is the caller's to shorten.
    await expect(create(parent, [{ start: 10, end: 140, profile: 'vidB-stories' }])).rejects.toMatchObject({
      message: expect.not.stringMatching(/target/),
    });
    await expect(create(parent, [{ start: 390, end: 410 }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^clip 1: the clip ends at 410 s, after the end of the media/),
    });
    await expect(create(parent, [{ candidate_id: 'c1', start: 1 }])).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/not both/) });
    await expect(create(parent, [{ title: 'nothing to cut' }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/candidate_id.*or give start and end/),
    });
    await expect(create(parent, [{ start: 0, end: 10, subject: 'manual' }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^clip 1: subject=manual needs subject_box/),
    });
    await expect(create(foreign, [{ candidate_id: 'c1' }])).rejects.toMatchObject({ code: 'forbidden', status: 403 });
    await expect(create(randomUUID(), [{ candidate_id: 'c1' }])).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await expect(create(expired, [{ candidate_id: 'c1' }])).rejects.toMatchObject({ code: 'source_gone', status: 410 });
    await expect(create(transcribe, [{ start: 0, end: 10 }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/is a transcribe job; clips_vertical cuts from a find_clips job/),
    });
    await expect(create(parent, [{ candidate_id: 'c1' }], 'clips_horizontal')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/offered through the MCP tool/),
    });
    await expect(create(parent, [{ candidate_id: 'c1' }], 'extract_clip')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/is not a clip bundle/),
    });
    await expect(create(parent, [{ candidate_id: 'c1' }], 'clips_vertical', { bearer: '' })).rejects.toMatchObject({ code: 'unauthenticated', status: 401 });
    // The clips document is gone: candidates cannot be resolved, a window still can.
    await ctx.db.delete(jobOutputs).where(eq(jobOutputs.jobId, parent));
    await expect(create(parent, [{ candidate_id: 'c1' }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/no longer has its clips output/),
    });
    expect(await counts()).toEqual(before);
  });

  it('sells N clips as one checkout of quantity N; paying starts the children; a failed child refunds one clip, the last one ends the bundle', async () => {
    await addAgent(ctx, 'cutter', ['cut']);
    const c = await credsOf(ctx);
    const parent = await findClipsParent(ctx, c);
    const { value: b } = await createBundleCall(
      ctx,
      c,
      parent,
      {
        job_type: 'clips_vertical',
        clips: [
          { candidate_id: 'c1', profile: 'vidA-primary-720p' },
          { start: 300, end: 330, title: 'The ending' },
        ],
      },
      'rest',
    );
    expect(b).toMatchObject({
      job_type: 'clips_vertical',
      payment_status: 'pending',
      price_cents: 100,
      unit_price_cents: 50,
      quantity: 2,
      source_job_id: parent,
    });
    expect(b.children).toEqual([
      { index: 1, job_id: expect.any(String), candidate_id: 'c1', start: 10, end: 140, title: 'Moment c1' },
      { index: 2, job_id: expect.any(String), candidate_id: null, start: 300, end: 330, title: 'The ending' },
    ]);
    expect(b.checkout_url).toBe(`${fake.url}/c/pay/${b.card_checkout_session_id}`);
    expect(fake.state.lineItems.get(b.card_checkout_session_id!)).toEqual([expect.objectContaining({ unit_amount: 50, quantity: 2 })]);
    expect(fake.state.checkoutSessions.get(b.card_checkout_session_id!)!.amount_total).toBe(100);

    const [k1, k2] = b.children.map((x) => x.job_id) as [string, string];
    expect(await jobRow(ctx, k1)).toMatchObject({
      jobType: 'extract_vertical_clip',
      status: 'pending',
      paymentStatus: 'paid_by_parent',
      parentJobId: b.job_id,
      sourceJobId: parent,
      priceCents: 50,
      originalFilename: 'talk.clip1.vertical.mp4',
      params: expect.objectContaining({ start: 10, end: 140, profile: 'vidA-primary-720p', subject: 'center', title: 'Moment c1' }),
    });
    // Pending children do nothing until the checkout completes: no wake-up, and no agent can take one.
    const wakeups = async () => (await ctx.db.select().from(outbox)).filter((r) => [k1, k2].includes((r.payload as { job_id: string }).job_id)).length;
    expect(await wakeups()).toBe(0);
    expect(await claimJob(ctx, { v: 1, job_id: k1, agent_id: 'cutter' })).toMatchObject({ claimed: false });
    // No MPP challenge and no /process for a bundle: its checkout pays it.
    await expect(processCall(ctx, c, b.job_id)).rejects.toMatchObject({ code: 'wrong_endpoint', status: 400 });

    const pi = await payCheckout(b.card_checkout_session_id!);
    expect(await jobRow(ctx, b.job_id)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid', amountPaidCents: 100, paymentReference: pi });
    expect(await wakeups()).toBe(2);
    for (const k of [k1, k2]) expect(await jobRow(ctx, k)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid_by_parent' });
    const view = await getJobCall(ctx, c, k1);
    expect(view).toMatchObject({ bundle_job_id: b.job_id, payment_status: 'paid_by_parent', source_job_id: parent });

    const fail = async (k: string) => {
      const a = await claimJob(ctx, { v: 1, job_id: k, agent_id: 'cutter' });
      if (!a.claimed) throw new Error(a.reason);
      await failAttempt(ctx, {
        v: 1,
        job_id: k,
        attempt_id: a.assignment.attempt_id,
        agent_id: 'cutter',
        code: 'media_invalid',
        message: 'subject_id s9 was not found in this clip',
      });
    };
    await fail(k1);
    expect(await jobRow(ctx, k1)).toMatchObject({ status: 'failed', paymentStatus: 'refunded' });
    expect(await jobRow(ctx, b.job_id)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid' });
    const refunds = () =>
      ctx.db
        .select()
        .from(ledgerEntries)
        .where(inArray(ledgerEntries.jobId, [b.job_id, k1, k2]));
    expect((await refunds()).filter((r) => r.kind === 'refund')).toEqual([
      expect.objectContaining({ jobId: k1, rail: 'card', amount: 50n, state: 'pending', chargeReference: pi, idempotencyKey: `refund:${k1}` }),
    ]);
    await processRefunds(ctx);
    const onProcessor = () => [...fake.state.refunds.values()].filter((r) => r.payment_intent === pi).map((r) => r.amount);
    expect(onProcessor()).toEqual([50]);
    expect([...fake.state.charges.values()].find((ch) => ch.payment_intent === pi)).toMatchObject({ amount_refunded: 50, refunded: false });

    await fail(k2);
    const bundle = await getJobCall(ctx, c, b.job_id);
    expect(bundle).toMatchObject({
      status: 'failed',
      payment_status: 'refunded',
      error_message: expect.stringMatching(/^every clip failed and was refunded: clip 1: .*; clip 2: /),
    });
    expect(bundle.children!.map((x) => [x.index, x.status, x.payment_status])).toEqual([
      [1, 'failed', 'refunded'],
      [2, 'failed', 'refunded'],
    ]);
    await processRefunds(ctx);
    expect(onProcessor()).toEqual([50, 50]);
    // Two shares, nothing for the bundle itself: the whole payment went back exactly once.
    expect((await refunds()).filter((r) => r.kind === 'refund').map((r) => [r.jobId, r.amount, r.state])).toEqual([
      [k1, 50n, 'done'],
      [k2, 50n, 'done'],
    ]);
  });

  it('clips_horizontal (service layer): one-segment extract_clip children; one delivered and one failed → completed, its outputs shown per clip', async () => {
    await addAgent(ctx, 'cutter', ['cut']);
    const c = await credsOf(ctx);
    const parent = await findClipsParent(ctx, c);
    const { value: b } = await createBundleCall(ctx, c, parent, { job_type: 'clips_horizontal', clips: [{ candidate_id: 'c2' }, { start: 0, end: 5 }] }, 'mcp');
    expect(b).toMatchObject({ job_type: 'clips_horizontal', price_cents: 100, quantity: 2 });
    const [k1, k2] = b.children.map((x) => x.job_id) as [string, string];
    expect(await jobRow(ctx, k1)).toMatchObject({
      jobType: 'extract_clip',
      params: expect.objectContaining({ segments: [{ start: 150, end: 300, label: 'Moment c2' }], include_transcript: false }),
    });
    const pi = await payCheckout(b.card_checkout_session_id!);

    const a = await claimJob(ctx, { v: 1, job_id: k1, agent_id: 'cutter' });
    if (!a.claimed) throw new Error(a.reason);
    await ctx.blobs.put(a.assignment.outputs['clip']!.key, Buffer.from('mp4 bytes'), 'video/mp4');
    await completeAttempt(ctx, {
      v: 1,
      job_id: k1,
      attempt_id: a.assignment.attempt_id,
      agent_id: 'cutter',
      job_type: 'extract_clip',
      media: { duration_seconds: 400, has_video: true, has_audio: true, format_name: 'mov,mp4' },
      video: { duration_seconds: 150, width: 1280, height: 720, fps: 25, encoder: 'libx264' },
      outputs: [{ name: 'clip', bytes: 9 }],
    });
    expect((await jobRow(ctx, b.job_id)).status).toBe('analyzing');
    const a2 = await claimJob(ctx, { v: 1, job_id: k2, agent_id: 'cutter' });
    if (!a2.claimed) throw new Error(a2.reason);
    await failAttempt(ctx, {
      v: 1,
      job_id: k2,
      attempt_id: a2.assignment.attempt_id,
      agent_id: 'cutter',
      code: 'media_invalid',
      message: 'the source cannot be decoded at 0 s',
    });

    const bundle = await getJobCall(ctx, c, b.job_id);
    expect(bundle).toMatchObject({
      status: 'completed',
      payment_status: 'paid',
      error_message: expect.stringMatching(/^1 of 2 clips failed and were refunded/),
    });
    expect(Date.parse(bundle.expires_at!) - Date.parse(bundle.completed_at!)).toBe(24 * 3600_000);
    expect(bundle.outputs.map((o) => [o.role, o.job_id])).toEqual([['clip_1', k1]]);
    expect(bundle.children!.map((x) => [x.index, x.status, x.payment_status])).toEqual([
      [1, 'completed', 'paid_by_parent'],
      [2, 'failed', 'refunded'],
    ]);
    const refunds = await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.chargeReference, pi));
    expect(refunds.map((r) => [r.jobId, r.kind, r.amount])).toEqual([[k2, 'refund', 50n]]);
  });
});

describe('clip bundles, billing off', () => {
  let ctx: EngineCtx;
  beforeAll(async () => {
    ctx = await createEngineCtx();
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('creates the bundle prepaid and starts every child at once, with no checkout', async () => {
    const c = await credsOf(ctx);
    const parent = await findClipsParent(ctx, c);
    const { value: b } = await createBundleCall(
      ctx,
      c,
      parent,
      { job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }, { candidate_id: 'c2' }] },
      'rest',
    );
    expect(b).toMatchObject({ payment_status: 'paid', price_cents: 100, quantity: 2 });
    expect(b).not.toHaveProperty('checkout_url');
    expect(await jobRow(ctx, b.job_id)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid', amountPaidCents: 0 });
    for (const k of b.children)
      expect(await jobRow(ctx, k.job_id)).toMatchObject({ status: 'analyzing', paymentStatus: 'paid_by_parent', parentJobId: b.job_id });
    expect(ctx.notified.outbox).toBeGreaterThan(0);

    // Nobody claims the bundle itself: past the re-publish period its children get new wake-ups, it gets none.
    const wakeupsFor = async (id: string) => (await ctx.db.select().from(outbox)).filter((r) => (r.payload as { job_id: string }).job_id === id).length;
    const before = await wakeupsFor(b.children[0]!.job_id);
    await ctx.db.update(outbox).set({ publishedAt: ctx.clock.now() }); // as the relay would
    ctx.clock.advance(10 * 60_000);
    const { sweepOnce } = await import('../../sweeper/sweeper.ts');
    const swept = await sweepOnce(ctx);
    expect(swept['wakeups']).toEqual({ republished: 2, failed: 0, errors: 0 });
    expect(await wakeupsFor(b.children[0]!.job_id)).toBe(before + 1);
    expect(await wakeupsFor(b.job_id)).toBe(0);
    expect(await jobRow(ctx, b.job_id)).toMatchObject({ status: 'analyzing', attemptCount: 0 });
  });
});

describe('clip bundles over REST (billing off)', () => {
  let ctx: EngineCtx;
  let app: Awaited<ReturnType<typeof import('../../app.ts').buildApp>>;
  beforeAll(async () => {
    ctx = await createEngineCtx();
    const { buildApp } = await import('../../app.ts');
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
  });

  it('answers POST /jobs/{parent_job_id}/derivatives with the bundle, every refusal a 4xx {error}; POST /jobs does not make bundles', async () => {
    const c = await credsOf(ctx);
    const parent = await findClipsParent(ctx, c);
    const post = (json: unknown, token: string | null = c.bearer) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/jobs/${parent}/derivatives`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        payload: json as object,
      });
    const refused = async (json: unknown, status: number, error: RegExp, token?: string | null) => {
      const r = await post(json, token);
      expect(r.statusCode, r.body).toBe(status);
      expect(r.json()).toEqual({ error: expect.stringMatching(error) });
    };
    await refused({ job_type: 'clips_vertical', clips: Array.from({ length: 6 }, () => ({ candidate_id: 'c1' })) }, 400, /clips/);
    await refused({ job_type: 'clips_vertical', clips: [] }, 400, /clips/);
    await refused({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1', colour: 'red' }] }, 400, /colour/);
    await refused({ job_type: 'clips_vertical', clips: [{ title: 'x'.repeat(201), start: 0, end: 5 }] }, 400, /title/);
    await refused({ job_type: 'clips_horizontal', clips: [{ candidate_id: 'c1' }] }, 400, /offered through the MCP tool/);
    await refused({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c7' }] }, 400, /c7 is not a candidate/);
    await refused({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }] }, 401, /session/, null);
    const viaJobs = await app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { authorization: `Bearer ${c.bearer}` },
      payload: { job_type: 'clips_vertical', source_job_id: parent },
    });
    expect(viaJobs.statusCode).toBe(400);
    expect(viaJobs.json().error).toMatch(/POST \/jobs\/\{parent_job_id\}\/derivatives/);
    expect((await ctx.db.select({ id: jobs.id }).from(jobs)).length).toBe(1);

    const ok = await post({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }, { start: 0, end: 20, title: 'Opening', subject: 'auto' }] });
    expect(ok.statusCode, ok.body).toBe(201);
    const b = ok.json();
    expect(b).toMatchObject({ job_type: 'clips_vertical', payment_status: 'paid', price_cents: 100, unit_price_cents: 50, quantity: 2, source_job_id: parent });
    const view = await app.inject({ method: 'GET', url: `/api/v1/jobs/${b.job_id}`, headers: { authorization: `Bearer ${c.bearer}` } });
    expect(view.json()).toMatchObject({ job_type: 'clips_vertical', status: 'analyzing', payment_status: 'paid', source_job_id: parent, outputs: [] });
    const child = await app.inject({ method: 'GET', url: `/api/v1/jobs/${b.children[1].job_id}`, headers: { authorization: `Bearer ${c.bearer}` } });
    expect(child.json()).toMatchObject({ job_type: 'extract_vertical_clip', status: 'analyzing', payment_status: 'paid_by_parent', bundle_job_id: b.job_id });
  });
});
