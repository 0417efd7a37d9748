// The card rail end to end: the coordinator's official stripe client talks to the stateful
// processor fake, which signs webhooks back to the coordinator; mppx's stock client pays the
// MPP `stripe` method with Shared Payment Tokens minted on the fake. Cases share one stack and
// one session; each case makes its own job so a failure stays local.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { Challenge, Credential, Receipt } from 'mppx';
import { Mppx, stripe as stripeMethod } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, paymentConsumptions, webhookEvents } from '../coordinator/src/db/schema.ts';
import { markJobPaid } from '../coordinator/src/jobs/mark-paid.ts';
import { reconcilePayments } from '../coordinator/src/payments/reconcile.ts';
import { signatureHeader, type StripeFake } from './fakes/stripe/index.ts';
import { waitFor } from './fixtures/index.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';
import { undecodableMp4 } from './harness/bad-media.ts';

const SWEEP_MS = 250;

describe('card rail on the real stack', () => {
  let stack: Stack;
  let fake: StripeFake;
  let token: string;
  let base: string;

  beforeAll(async () => {
    stack = await startStack({ billing: true, storage: 'local', agents: 1, sweepMs: SWEEP_MS });
    fake = stack.billing!.stripe;
    base = stack.coordinator.url;
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const db = () => stack.coordinator.ctx.db;
  const ledger = (jobId: string) => db().select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId)).orderBy(ledgerEntries.id);
  const job = async (id: string) => (await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body;
  const bearer = () => ({ authorization: `Bearer ${token}` });
  const uploadUrl = (id: string) => `${base}/api/v1/jobs/${id}/upload-url`;
  const intentsOf = (jobId: string) => [...fake.state.paymentIntents.values()].filter((pi) => pi.metadata['job_id'] === jobId);
  const refundsOf = (pi: string) => [...fake.state.refunds.values()].filter((r) => r.payment_intent === pi);
  const intentCreates = () => fake.state.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').length;

  async function newJob(filename = 'short.wav') {
    const r = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename, content_type: 'audio/wav' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { job_id: string; checkout_url?: string; card_checkout_session_id?: string; mpp?: unknown; payment_status: string };
  }

  /** The paying customer on the hosted page; the fake delivers the signed webhook before answering. */
  async function payCheckout(csId: string) {
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${csId}/pay`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { payment_intent: { id: string }; event_id: string; deliveries: Array<{ ok: boolean; status: number }> };
    expect(out.deliveries).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
    return out;
  }

  /** What an agent's wallet does for mppx's createToken: grant an SPT through the processor's test helper. */
  async function mintSpt(p: { amount: string; currency: string; expiresAt: number; paymentMethod?: string | undefined }): Promise<string> {
    const form = new URLSearchParams({
      payment_method: p.paymentMethod ?? 'pm_card_visa',
      'usage_limits[currency]': p.currency,
      'usage_limits[max_amount]': p.amount,
      'usage_limits[expires_at]': String(p.expiresAt),
    });
    const res = await fetch(`${fake.url}/v1/test_helpers/shared_payment/granted_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  }

  /** mppx's stock client with only the `stripe` method; `spt` overrides the token it presents. */
  function cardWallet(spt?: string) {
    const minted: string[] = [];
    const client = Mppx.create({
      polyfill: false,
      methods: [
        stripeMethod({
          paymentMethod: 'pm_card_visa',
          createToken: async (p) => {
            const t = spt ?? (await mintSpt(p));
            minted.push(t);
            return t;
          },
        }),
      ],
    });
    return { client, minted };
  }

  /** A new job paid through its hosted checkout (the fake delivers the webhook before answering). */
  async function paidByCheckout() {
    const created = await newJob();
    const pay = await payCheckout(created.card_checkout_session_id!);
    expect((await job(created.job_id)).payment_status).toBe('paid');
    return { id: created.job_id, csId: created.card_checkout_session_id!, pi: pay.payment_intent.id, eventId: pay.event_id };
  }

  let first: { id: string; csId: string; pi: string; eventId: string };

  it('hosted checkout: the signed webhook marks the job paid, books one charge, and the job runs', async () => {
    const created = await newJob();
    const id = created.job_id;
    expect(created).toMatchObject({ payment_status: 'pending', checkout_url: `${fake.url}/c/pay/${created.card_checkout_session_id}` });
    expect(created.card_checkout_session_id).toMatch(/^cs_test_/);
    // Get-or-create: the same session again, and only one exists on the processor.
    const again = await stack.api.call('POST', `/api/v1/jobs/${id}/checkout`, { token });
    expect(again.body).toEqual({ checkout_url: created.checkout_url, card_checkout_session_id: created.card_checkout_session_id });
    expect([...fake.state.checkoutSessions.values()].filter((s) => s.metadata['job_id'] === id)).toHaveLength(1);
    const me = await stack.api.call('GET', '/api/v1/sessions/me', { token });
    expect(me.body.card_checkout_session_id).toBe(created.card_checkout_session_id);
    expect((await fetch(uploadUrl(id), { headers: bearer() })).status).toBe(402);

    const pay = await payCheckout(created.card_checkout_session_id!);
    first = { id, csId: created.card_checkout_session_id!, pi: pay.payment_intent.id, eventId: pay.event_id };
    expect(await job(id)).toMatchObject({ status: 'uploading', payment_status: 'paid' });
    const up = await fetch(uploadUrl(id), { headers: bearer() });
    expect(up.status).toBe(200);
    expect(up.headers.get('www-authenticate')).toBeNull();
    expect((await ledger(id)).map((r) => [r.kind, r.rail, r.amount, r.state, r.reference])).toEqual([['charge', 'card', 50n, 'done', pay.payment_intent.id]]);

    const { upload_url } = (await up.json()) as { upload_url: string };
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(librivoxUtterances()[1]!.file) })).ok).toBe(
      true,
    );
    expect((await stack.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);
    const done = await stack.api.waitForJob(token, id);
    expect(done.status, done.error_message).toBe('completed');
    expect(done.payment_status).toBe('paid');

    const landing = await stack.api.call('GET', `/api/v1/checkout/complete?session_id=${first.csId}`);
    expect(landing.body).toMatchObject({ card_checkout_session_id: first.csId, job_id: id, payment_status: 'paid' });
  });

  it('a redelivered webhook event is acknowledged and changes nothing', async () => {
    const res = await fetch(`${fake.url}/__fake/events/${first.eventId}/deliver`, { method: 'POST', body: '{}' });
    expect(((await res.json()) as { deliveries: unknown[] }).deliveries).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
    // Only the one charge: neither a second charge nor a "duplicate payment" refund was booked.
    expect((await ledger(first.id)).map((r) => [r.kind, r.reference])).toEqual([['charge', first.pi]]);
    expect(await db().select().from(webhookEvents).where(eq(webhookEvents.id, first.eventId))).toHaveLength(1);
    expect(await job(first.id)).toMatchObject({ status: 'completed', payment_status: 'paid' });
  });

  it('refuses forged webhooks with a plain 400 and leaves the job pending', async () => {
    const created = await newJob();
    const csId = created.card_checkout_session_id!;
    const event = {
      id: 'evt_forged_0001',
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: {
        object: {
          id: csId,
          object: 'checkout.session',
          status: 'complete',
          payment_status: 'paid',
          amount_total: 50,
          payment_intent: 'pi_forged',
          metadata: { job_id: created.job_id },
        },
      },
    };
    const body = JSON.stringify(event, null, 2);
    const altered = body.replace('"amount_total": 50', '"amount_total": 5000');
    expect(altered).not.toBe(body);
    const now = Math.floor(Date.now() / 1000);
    const post = (payload: string, signature?: string) =>
      fetch(`${base}/api/v1/webhooks/card`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature && { 'stripe-signature': signature }) },
        body: payload,
      });
    const attempts = [
      post(body, signatureHeader(body, 'whsec_not_the_endpoint_secret', now)), // signed by someone else
      post(altered, signatureHeader(body, stack.billing!.webhookSecret, now)), // altered after signing
      post(body), // unsigned
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: expect.stringMatching(/webhook rejected/i) });
    }
    expect(await job(created.job_id)).toMatchObject({ status: 'pending', payment_status: 'pending' });
    expect(await db().select().from(webhookEvents).where(eq(webhookEvents.id, event.id))).toEqual([]);
    expect(await ledger(created.job_id)).toEqual([]);
  });

  let mppPaid: { id: string; csId: string; pi: string; spt: string };

  it('mppx stock client pays the 402 with the stripe method (a real SPT on the processor)', async () => {
    const created = await newJob();
    const id = created.job_id;
    const probe = await fetch(uploadUrl(id), { headers: bearer() });
    expect(probe.status).toBe(402);
    const offered = Challenge.fromResponseList(probe);
    expect(offered.map((c) => c.method)).toEqual(expect.arrayContaining(['evm', 'stripe']));
    expect(offered.find((c) => c.method === 'stripe')!.request).toMatchObject({ amount: '50', currency: 'usd', externalId: id });

    const wallet = cardWallet();
    const res = await wallet.client.fetch(uploadUrl(id), { headers: bearer() });
    expect(res.status).toBe(200);
    const receipt = Receipt.deserialize(res.headers.get('payment-receipt')!);
    expect(receipt).toMatchObject({ method: 'stripe', status: 'success' });
    expect(fake.state.paymentIntents.get(receipt.reference)).toMatchObject({ amount: 50, amount_received: 50, status: 'succeeded', metadata: { job_id: id } });
    expect(wallet.minted).toHaveLength(1);
    expect(await job(id)).toMatchObject({ status: 'uploading', payment_status: 'paid' });
    expect((await ledger(id)).map((r) => [r.kind, r.amount, r.reference])).toEqual([['charge', 50n, receipt.reference]]);
    mppPaid = { id, csId: created.card_checkout_session_id!, pi: receipt.reference, spt: wallet.minted[0]! };
  });

  it('refuses a replayed credential and a used-up SPT without a second charge', async () => {
    // Paid creation (no bearer): the challenge names no job, so only the consumed record stops a replay.
    const wallet = cardWallet();
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' }),
    };
    const offer = await fetch(`${base}/api/v1/jobs`, init);
    expect(offer.status).toBe(402);
    const credential = await wallet.client.createCredential(offer);
    const paid = await fetch(`${base}/api/v1/jobs`, { ...init, headers: { ...init.headers, authorization: credential } });
    expect(paid.status).toBe(201);
    expect(await paid.json()).toMatchObject({ payment_status: 'paid', session_token: expect.any(String) });
    const creates = intentCreates();
    const replay = await fetch(`${base}/api/v1/jobs`, { ...init, headers: { ...init.headers, authorization: credential } });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toMatchObject({ type: 'https://paymentauth.org/problems/invalid-challenge', status: 402 });
    expect(intentCreates()).toBe(creates); // refused before the processor was asked

    // The SPT that already paid case 4 (max_amount 50, used up): the processor declines it.
    const pending = await newJob();
    const reused = cardWallet(mppPaid.spt);
    const usedUp = await reused.client.createCredential(await fetch(uploadUrl(pending.job_id), { headers: bearer() }));
    const res = await fetch(uploadUrl(pending.job_id), { headers: { authorization: usedUp } });
    expect(res.status).toBe(402);
    expect(res.headers.get('www-authenticate')).toContain('method="stripe"'); // a fresh offer to pay again
    expect(await res.json()).toMatchObject({ type: 'https://paymentauth.org/problems/verification-failed' });
    expect(intentsOf(pending.job_id).filter((pi) => pi.status === 'succeeded')).toEqual([]);
    expect(fake.state.sharedPaymentTokens.get(mppPaid.spt)!.amountUsed).toBe(50);
    expect(await job(pending.job_id)).toMatchObject({ payment_status: 'pending' });
    expect(await ledger(pending.job_id)).toEqual([]);
  });

  it("a credential for a payment method we do not take: 400 with the spec's {error}, problem+json beside it, nothing charged", async () => {
    const created = await newJob();
    const probe = await fetch(uploadUrl(created.job_id), { headers: bearer() });
    expect(probe.status).toBe(402);
    const stripe = Challenge.fromResponseList(probe).find((c) => c.method === 'stripe')!;
    const foreign = Credential.serialize(Credential.from({ challenge: { ...stripe, method: 'tempo' }, payload: { spt: 'spt_not_used' } }));
    const creates = intentCreates();
    const res = await fetch(uploadUrl(created.job_id), { headers: { authorization: foreign } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      error: expect.stringMatching(/payment method tempo is not accepted/),
      type: 'https://paymentauth.org/problems/method-unsupported',
      title: 'Method Unsupported',
      status: 400,
      detail: expect.stringMatching(/payment method tempo is not accepted/),
    });
    expect(intentCreates()).toBe(creates);
    expect(await job(created.job_id)).toMatchObject({ payment_status: 'pending' });
  });

  it('a second payment (hosted checkout after MPP) is booked and refunded once, automatically', async () => {
    const pay = await payCheckout(mppPaid.csId);
    const checkoutPi = pay.payment_intent.id;
    await waitFor(async () => (await ledger(mppPaid.id)).some((r) => r.kind === 'refund' && r.state === 'done'), 15_000, {
      description: 'the duplicate refund',
    });
    await sleep(SWEEP_MS * 4); // more sweeps must not refund again
    expect(refundsOf(checkoutPi)).toEqual([expect.objectContaining({ amount: 50, status: 'succeeded' })]);
    expect(refundsOf(mppPaid.pi)).toEqual([]);
    const rows = (await ledger(mppPaid.id)).map((r) => [r.kind, r.amount, r.state, r.kind === 'refund' ? r.chargeReference : r.reference]);
    expect(rows).toEqual([
      ['charge', 50n, 'done', mppPaid.pi],
      ['charge', 50n, 'done', checkoutPi],
      ['refund', 50n, 'done', checkoutPi],
    ]);
    // The job keeps the payment that paid it first.
    expect(await job(mppPaid.id)).toMatchObject({ status: 'uploading', payment_status: 'paid' });
  });

  it('a failed job is refunded on the card exactly once', async () => {
    const paid = await paidByCheckout();
    const up = await stack.api.call('GET', `/api/v1/jobs/${paid.id}/upload-url`, { token });
    expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: undecodableMp4(100_000) })).ok).toBe(true);
    expect((await stack.api.call('POST', `/api/v1/jobs/${paid.id}/complete-upload`, { token })).status).toBe(200);
    const failed = await stack.api.waitForJob(token, paid.id);
    expect(failed).toMatchObject({ status: 'failed', payment_status: 'refunded' });

    const refundRow = async () => (await ledger(paid.id)).find((r) => r.kind === 'refund');
    await waitFor(async () => (await refundRow())?.state === 'done', 15_000, { description: 'the card refund' });
    await sleep(SWEEP_MS * 4);
    const refunds = refundsOf(paid.pi);
    expect(refunds).toEqual([expect.objectContaining({ amount: 50, status: 'succeeded' })]);
    expect(await refundRow()).toMatchObject({ state: 'done', amount: 50n, reference: refunds[0]!.id, chargeReference: paid.pi, attempts: 1 });
  });

  it('survives a processor outage: job creation still works, a failed SPT charge can be retried', async () => {
    // Checkout creation fails on every try the stripe client makes (1 + 2 retries).
    fake.injectFault({ path_prefix: '/v1/checkout/sessions', method: 'POST', count: 3, status: 503 });
    const created = await newJob();
    expect(fake.state.faults).toEqual([]);
    expect(created.payment_status).toBe('pending');
    expect(created.checkout_url).toBeUndefined();
    expect(created.mpp).toMatchObject({ deposit_address: stack.billing!.relayer.address, amount: '0.20', currency: 'USDC' });
    const later = await stack.api.call('POST', `/api/v1/jobs/${created.job_id}/checkout`, { token });
    expect(later.status).toBe(200);
    expect(later.body.checkout_url).toBe(`${fake.url}/c/pay/${later.body.card_checkout_session_id}`);

    // The SPT charge fails the same way. The processor may have run it before failing, so the
    // payer hears "being confirmed" (503), never "nothing was charged"; the consumption stays
    // pending, and the same credential, repeated, re-runs it under the same idempotency key.
    const wallet = cardWallet();
    const credential = await wallet.client.createCredential(await fetch(uploadUrl(created.job_id), { headers: bearer() }));
    fake.injectFault({ path_prefix: '/v1/payment_intents', method: 'POST', count: 3, status: 500 });
    const down = await fetch(uploadUrl(created.job_id), { headers: { authorization: credential } });
    expect(down.status).toBe(503);
    expect(fake.state.faults).toEqual([]); // every retry of the stripe client hit the outage
    const { error } = (await down.json()) as { error: string };
    expect(error).toMatch(/being confirmed/);
    expect(error).not.toMatch(/nothing was charged/i);
    expect(intentsOf(created.job_id)).toEqual([]);
    expect(await db().select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, created.job_id))).toMatchObject([
      { state: 'pending', rail: 'card' },
    ]);

    const retried = await fetch(uploadUrl(created.job_id), { headers: { authorization: credential } });
    expect(retried.status).toBe(200);
    const receipt = Receipt.deserialize(retried.headers.get('payment-receipt')!);
    expect(intentsOf(created.job_id)).toEqual([expect.objectContaining({ id: receipt.reference, status: 'succeeded', amount_received: 50 })]);
    expect(await job(created.job_id)).toMatchObject({ payment_status: 'paid' });
    // Settled: the kept token is dropped.
    expect(await db().select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, created.job_id))).toMatchObject([
      { state: 'settled', reference: receipt.reference, recovery: null },
    ]);
  });

  it('a charge whose outcome the processor left open is settled by reconciliation (re-run under its idempotency key), booked once', async () => {
    const created = await newJob();
    const wallet = cardWallet();
    const credential = await wallet.client.createCredential(await fetch(uploadUrl(created.job_id), { headers: bearer() }));
    fake.injectFault({ path_prefix: '/v1/payment_intents', method: 'POST', count: 3, status: 500 });
    expect((await fetch(uploadUrl(created.job_id), { headers: { authorization: credential } })).status).toBe(503);
    expect(await ledger(created.job_id)).toMatchObject([{ kind: 'charge', state: 'pending', rail: 'card' }]);
    // The sweeper's reconciliation pass, run as the sweeper runs it.
    await waitFor(
      async () => {
        await reconcilePayments(stack.coordinator.ctx, markJobPaid);
        return (await job(created.job_id)).payment_status === 'paid';
      },
      30_000,
      {
        description: 'the card charge reconciled',
      },
    );
    const [pi] = intentsOf(created.job_id);
    expect(intentsOf(created.job_id)).toEqual([expect.objectContaining({ status: 'succeeded', amount_received: 50 })]);
    expect(await ledger(created.job_id)).toMatchObject([{ kind: 'charge', state: 'done', reference: pi!.id, amount: 50n }]);
    // The credential was used: presenting it again charges nothing more.
    expect((await fetch(uploadUrl(created.job_id), { headers: { authorization: credential } })).status).toBe(401);
    expect(intentsOf(created.job_id)).toHaveLength(1);
  });
});
