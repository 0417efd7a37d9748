import { eq, inArray } from 'drizzle-orm';
import { stripe as stripeClient, Mppx } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentProduct } from '@cutroom/shared/products';
import { signatureHeader, startStripeFake, type StripeFake } from '../../../../test/fakes/stripe/index.ts';
import { completeAttempt, failAttempt } from '../../agents/attempts.ts';
import { claimJob } from '../../agents/claim.ts';
import { checkoutSessions, jobs, ledgerEntries } from '../../db/schema.ts';
import { PaymentRequiredError } from '../../payments/gate.ts';
import { formatWwwAuthenticate } from '../../payments/mpp/challenge.ts';
import { cardWebhookCall, completeUploadCall, createJobCall, createProductCall, getJobCall, uploadUrlCall } from '../../service/index.ts';
import { addAgent, createEngineCtx, jobRow, type EngineCtx } from '../../testing/engine-ctx.ts';
import { candidate, clipsOf, completeFindClips, endChild, productCreds } from '../../testing/product-kit.ts';
import { compositeRuns, driveComposite } from '../steps.ts';
import { startStepWorker } from '../../durable/step-worker.ts';
import { captureDue } from './product-steps.ts';
import type { Settle } from './product-params.ts';
import { mp4Bytes } from '@cutroom/shared/testing/media-bytes';

const WEBHOOK_SECRET = 'whsec_product_test_0123456789';

/**
 * Agent products with billing on: the card processor fake behind the official client, holds
 * placed by an MPP `stripe` credential (mppx's stock client) or by a hosted checkout with manual
 * capture, and settled for what was delivered.
 */
describe('agent products, billing on (card holds on the processor fake)', () => {
  let ctx: EngineCtx;
  let fake: StripeFake;
  beforeAll(async () => {
    fake = await startStripeFake();
    ctx = await createEngineCtx({
      CARD_SECRET_KEY: fake.secretKey,
      CARD_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CARD_API_BASE: fake.url,
      CARD_NETWORK_ID: 'profile_cutroom_test',
      PAYMENT_CHALLENGE_SECRET: 'product-test-challenge-secret-0123456789',
    });
    // Stock clients check a challenge's expiry on the wall clock: start the manual clock there.
    ctx.clock.advance(Date.now() - ctx.clock.now().getTime());
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await fake?.stop();
  });

  const ledger = async (ids: string[]) =>
    (await ctx.db.select().from(ledgerEntries).where(inArray(ledgerEntries.jobId, ids)).orderBy(ledgerEntries.id)).map((r) => [r.kind, r.amount, r.state]);
  const executed = (pi: string, verb: 'capture' | 'cancel') =>
    fake.state.requests.filter((r) => r.path === `/v1/payment_intents/${pi}/${verb}` && !r.replayed && r.status === 200).length;
  const video = { filename: 'talk.mp4', content_type: 'video/mp4' };

  /** The 402 of a gated call, as MPP clients receive it over HTTP. */
  async function offerOf(call: Promise<unknown>): Promise<{ err: PaymentRequiredError; res: Response }> {
    const err = await call.then(
      () => null,
      (e: unknown) => e,
    );
    if (!(err instanceof PaymentRequiredError)) throw new Error(`expected a 402, got ${String(err)}`);
    const headers = new Headers();
    for (const ch of err.offer.challenges) headers.append('WWW-Authenticate', formatWwwAuthenticate(ch));
    return { err, res: new Response('{}', { status: 402, headers }) };
  }
  /** mppx's stock client paying with a Shared Payment Token the agent's wallet granted up to USD 10. */
  const sptCredential = (res: Response, spt = fake.createSharedPaymentToken({ maxAmount: 1000 }).id) =>
    Mppx.create({ methods: [stripeClient({ paymentMethod: 'pm_card_visa', createToken: async () => spt })], polyfill: false }).createCredential(res);

  /** The payer on the hosted page, then the processor's signed webhook as the coordinator receives it. */
  async function payCheckout(csId: string): Promise<string> {
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${csId}/pay`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { event_id: string; payment_intent: { id: string } };
    const raw = JSON.stringify(fake.state.events.find((e) => e.id === out.event_id)!);
    const applied = await cardWebhookCall(ctx, Buffer.from(raw), signatureHeader(raw, WEBHOOK_SECRET, Math.floor(ctx.clock.now().getTime() / 1000)));
    expect(applied).toEqual({ received: true, applied: true });
    return out.payment_intent.id;
  }

  /** A product paid by its hosted checkout (a hold), uploaded, its find_clips child started. */
  async function heldAndUploaded(product: AgentProduct, req: Record<string, unknown> = {}) {
    const c = await productCreds(ctx);
    const { value } = await createProductCall(ctx, c, product, { ...video, ...req } as never);
    const pi = await payCheckout(value.card_checkout_session_id!);
    await ctx.blobs.put(`jobs/${value.job_id}/upload`, mp4Bytes(), 'video/mp4');
    await completeUploadCall(ctx, c, value.job_id);
    const findId = ((await jobRow(ctx, value.job_id)).params['find_clips'] as { job_id: string }).job_id;
    return { c, id: value.job_id, pi, findId };
  }

  it('refuses a bad product with a 4xx before anything is written; offers the hold on the card only', async () => {
    const c = await productCreds(ctx);
    const count = async () => (await ctx.db.select({ id: jobs.id }).from(jobs)).length;
    const before = { jobs: await count(), checkouts: fake.state.checkoutSessions.size };
    const create = (req: Record<string, unknown>, product: AgentProduct = 'clips_from_video', who: { bearer?: string | null } = {}) =>
      createProductCall(ctx, { ...c, ...who }, product, req as never);
    await expect(create({ ...video, max_clips: 6 })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: expect.stringMatching(/max_clips/),
    });
    await expect(create({ ...video, profile: 'vidB-reels' }, 'clips_youtube')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/profile/),
    });
    await expect(create({ content_type: 'video/mp4' })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/filename/) });
    await expect(create({ ...video, query: '   ' })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/query is blank/) });
    await expect(create({ filename: 'talk.wav', content_type: 'audio/wav' })).rejects.toMatchObject({
      code: 'unsupported_media',
      message: expect.stringMatching(/cuts clips from a video/),
    });
    await expect(create({ filename: 'talk.txt', content_type: 'text/plain' })).rejects.toMatchObject({ code: 'unsupported_media' });
    await expect(create(video, 'clips_from_video', { bearer: 'not-a-token' })).rejects.toMatchObject({ code: 'unauthenticated', status: 401 });
    await expect(createJobCall(ctx, c, { job_type: 'clips_from_video', ...video })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/offered through the MCP tool/),
    });
    const card = ctx.billing.card;
    ctx.billing.card = null;
    try {
      await expect(create(video)).rejects.toMatchObject({ code: 'invalid_request', status: 400, message: expect.stringMatching(/card only/) });
    } finally {
      ctx.billing.card = card;
    }
    // No session: paid creation's 402, bound to this request, the card hold its only method.
    const { err } = await offerOf(create(video, 'clips_from_video', { bearer: null }));
    expect(err.offer.challenges.map((ch) => ch.method)).toEqual(['stripe']);
    expect(err.offer.requests['stripe']).toMatchObject({ amount: '450', currency: 'usd' });
    expect(err.offer.x402).toBeNull();
    expect({ jobs: await count(), checkouts: fake.state.checkoutSessions.size }).toEqual(before);
  });

  it('an MPP stripe credential holds 450 (never charges); the clips settle it: capture 200 + 50 per clip delivered, release the rest', async () => {
    await addAgent(ctx, 'cutter', ['cut']);
    const c = await productCreds(ctx);
    const { value } = await createProductCall(ctx, c, 'clips_youtube', { ...video, max_clips: 2 });
    expect(value).toMatchObject({ job_type: 'clips_youtube', payment_status: 'pending', price_cents: 450, next_endpoint: 'upload-url' });
    // Its checkout only authorizes.
    expect(fake.state.checkoutIntentData.get(value.card_checkout_session_id!)).toMatchObject({ captureMethod: 'manual' });
    const id = value.job_id;
    const { err, res } = await offerOf(uploadUrlCall(ctx, c, id));
    expect(err.offer.challenges.map((ch) => [ch.method, ch.intent])).toEqual([['stripe', 'charge']]);
    expect(err.offer.requests['stripe']).toMatchObject({ amount: '450', externalId: id });
    const spt = fake.createSharedPaymentToken({ maxAmount: 1000 }).id;
    const credential = await sptCredential(res, spt);
    const paid = await uploadUrlCall(ctx, { ...c, authorization: credential }, id);
    expect(paid.receipt['Payment-Receipt']).toBeDefined();
    const [pi] = [...fake.state.paymentIntents.values()].filter((x) => x.metadata['job_id'] === id);
    expect(pi).toMatchObject({ status: 'requires_capture', capture_method: 'manual', amount_capturable: 450, amount_received: 0 });
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'uploading', paymentStatus: 'paid', amountPaidCents: 450, paymentReference: pi!.id });
    expect(await ledger([id])).toEqual([['hold', 450n, 'done']]);
    // The credential is consumed once: presenting it again for this paid job pays nothing more.
    await expect(uploadUrlCall(ctx, { ...c, authorization: credential }, id)).resolves.toBeDefined();
    expect(fake.state.sharedPaymentTokens.get(spt)!.amountUsed).toBe(450);

    await ctx.blobs.put(`jobs/${id}/upload`, mp4Bytes(), 'video/mp4');
    await completeUploadCall(ctx, c, id);
    const findId = ((await jobRow(ctx, id)).params['find_clips'] as { job_id: string }).job_id;
    await completeFindClips(ctx, findId, [candidate('c1', 80, 10, 140), candidate('c2', 70, 150, 300), candidate('c3', 10, 300, 420)]);
    expect(await driveComposite(ctx, id)).toEqual(['cut']);
    const [k1, k2] = await clipsOf(ctx, id);

    // The clips through the agents' calls: the last commit nudges the durable-step worker (a real
    // one here, polling hourly so only the nudge can wake it), which runs the settlement.
    const worker = startStepWorker(ctx, [compositeRuns()], { pollMs: 3600_000 });
    const counted = ctx.nudgeSteps;
    ctx.nudgeSteps = () => worker.nudge();
    onTestFinished(async () => {
      ctx.nudgeSteps = counted;
      await worker.stop();
    });
    const a1 = await claimJob(ctx, { v: 1, job_id: k1!.id, agent_id: 'cutter' });
    if (!a1.claimed) throw new Error(a1.reason);
    await ctx.blobs.put(a1.assignment.outputs['clip']!.key, Buffer.from('mp4 bytes'), 'video/mp4');
    await completeAttempt(ctx, {
      v: 1,
      job_id: k1!.id,
      attempt_id: a1.assignment.attempt_id,
      agent_id: 'cutter',
      job_type: 'extract_clip',
      media: { duration_seconds: 400, has_video: true, has_audio: true, format_name: 'mov,mp4' },
      video: { duration_seconds: 130, width: 1280, height: 720, fps: 25, encoder: 'libx264' },
      outputs: [{ name: 'clip', bytes: 9 }],
    });
    const a2 = await claimJob(ctx, { v: 1, job_id: k2!.id, agent_id: 'cutter' });
    if (!a2.claimed) throw new Error(a2.reason);
    await failAttempt(ctx, {
      v: 1,
      job_id: k2!.id,
      attempt_id: a2.assignment.attempt_id,
      agent_id: 'cutter',
      code: 'media_invalid',
      message: 'the source could not be decoded while encoding the clip ([h264 @ 0x1] error at 150 s)',
      detail: { code: 'undecodable', params: { step: 'encoding_clip' } },
    });
    await expect.poll(async () => (await jobRow(ctx, id)).status, { timeout: 10_000 }).toBe('completed');

    expect(fake.state.paymentIntents.get(pi!.id)).toMatchObject({ status: 'succeeded', amount_received: 250, amount_capturable: 0 });
    expect(executed(pi!.id, 'capture')).toBe(1);
    // The 200 released went back to the agent's grant.
    expect(fake.state.sharedPaymentTokens.get(spt)!.amountUsed).toBe(250);
    expect(await ledger([id, findId, k1!.id, k2!.id])).toEqual([
      ['hold', 450n, 'done'],
      ['capture', 250n, 'done'],
      ['release', 200n, 'done'],
    ]);
    const view = await getJobCall(ctx, c, id);
    expect(view).toMatchObject({
      status: 'completed',
      payment_status: 'paid',
      error_message: expect.stringMatching(/^1 of 2 clips failed and were not charged .*clip 2: the source could not be decoded while encoding the clip$/),
    });
    expect(view.outputs.map((o) => [o.role, o.job_id])).toEqual([
      ['clips', findId],
      ['clip_1', k1!.id],
    ]);
    expect(view.children!.map((x) => [x.index, x.status, x.payment_status])).toEqual([
      [0, 'completed', 'paid_by_parent'],
      [1, 'completed', 'paid_by_parent'],
      [2, 'failed', 'refunded'],
    ]);
    expect(await jobRow(ctx, id)).toMatchObject({
      amountPaidCents: 250,
      params: expect.objectContaining({ settled: { captured_cents: 250, released_cents: 200 } }),
    });
  });

  it('a hosted checkout only authorizes; find_clips failing releases the whole hold, refunding nothing', async () => {
    const { id, pi, findId } = await heldAndUploaded('clips_from_video');
    const [cs] = await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.jobId, id));
    expect(await ledger([id])).toEqual([['hold', 450n, 'done']]);
    expect((await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, id)))[0]).toMatchObject({
      idempotencyKey: `hold:checkout:${cs!.id}`,
      reference: pi,
    });
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'requires_capture', amount_capturable: 450 });
    await ctx.db.update(jobs).set({ status: 'analyzing' }).where(eq(jobs.id, findId));
    await endChild(ctx, findId, false);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'failed', paymentStatus: 'refunded' });
    expect(await driveComposite(ctx, id)).toEqual(['settled']);
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'canceled', amount_received: 0 });
    expect(await ledger([id, findId])).toEqual([
      ['hold', 450n, 'done'],
      ['release', 450n, 'done'],
    ]);
    expect(await jobRow(ctx, id)).toMatchObject({ amountPaidCents: 0, stepDueAt: null });
  });

  it('a recording without candidates completes with no clips and the whole hold released', async () => {
    const { id, pi, findId } = await heldAndUploaded('clips_youtube');
    await completeFindClips(ctx, findId, []);
    expect(await driveComposite(ctx, id)).toEqual(['cut', 'settled']);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'completed', paymentStatus: 'paid', amountPaidCents: 0 });
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'canceled' });
    expect(await ledger([id])).toEqual([
      ['hold', 450n, 'done'],
      ['release', 450n, 'done'],
    ]);
  });

  it('a settle repeated after a crash between the capture and the status write captures nothing more', async () => {
    const { id, pi, findId } = await heldAndUploaded('clips_from_video', { max_clips: 1 });
    await completeFindClips(ctx, findId, [candidate('c1', 80, 10, 140)]);
    expect(await driveComposite(ctx, id)).toEqual(['cut']);
    const [k] = await clipsOf(ctx, id);
    await endChild(ctx, k!.id, true);
    const due = await jobRow(ctx, id);
    // The step captured, then the coordinator stopped before it wrote the product's end.
    await captureDue(ctx, due, due.params['settle'] as Settle);
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 250 });
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'analyzing', stepDueAt: due.stepDueAt });
    // The next run (the sweeper's) captures again under the same keys: replayed, nothing more moves.
    expect(await driveComposite(ctx, id)).toEqual(['settled']);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'completed', amountPaidCents: 250, stepDueAt: null });
    // Even a stale marker on the completed product settles nothing twice.
    await ctx.db.update(jobs).set({ stepDueAt: ctx.clock.now() }).where(eq(jobs.id, id));
    expect(await driveComposite(ctx, id)).toEqual(['settled']);
    expect(executed(pi, 'capture')).toBe(1);
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ amount_received: 250 });
    expect(await ledger([id])).toEqual([
      ['hold', 450n, 'done'],
      ['capture', 250n, 'done'],
      ['release', 200n, 'done'],
    ]);
  });

  it('a paid product never uploaded expires: the sweeper makes its release due, the step worker releases the hold, never a refund', async () => {
    const c = await productCreds(ctx);
    const { value } = await createProductCall(ctx, c, 'clips_from_video', video);
    const pi = await payCheckout(value.card_checkout_session_id!);
    ctx.clock.advance(26 * 3600_000);
    const { sweepOnce } = await import('../../sweeper/sweeper.ts');
    const swept = await sweepOnce(ctx);
    expect(swept['open-jobs']).toMatchObject({ expired: 1, errors: 0 });
    // The release is a durable step: the worker was nudged, and runs it (here: by hand).
    expect(ctx.notified.steps).toBeGreaterThan(0);
    expect(await driveComposite(ctx, value.job_id)).toEqual(['settled']);
    expect(await jobRow(ctx, value.job_id)).toMatchObject({ status: 'deleted', paymentStatus: 'refunded', stepDueAt: null });
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'canceled' });
    expect(await ledger([value.job_id])).toEqual([
      ['hold', 450n, 'done'],
      ['release', 450n, 'done'],
    ]);
  });
});
