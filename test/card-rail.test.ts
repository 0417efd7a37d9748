// The card rail with the official stripe client against the in-repo Stripe fake: hosted
// checkout with a signed webhook to a real HTTP receiver, Shared Payment Token charges and
// holds, refunds, and how failures are classified.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../coordinator/src/lib/app-error.ts';
import { createManualClock } from '../coordinator/src/lib/clock.ts';
import { createCardRail, type CardRail, type CardRailConfig } from '../coordinator/src/payments/rails/card-rail.ts';
import { PaymentProblem } from '../coordinator/src/payments/types.ts';
import { startStripeFake, type StripeFake } from './fakes/stripe/index.ts';
import { freePort } from './fixtures/net-utils.ts';

const WEBHOOK_SECRET = 'whsec_card_rail_test';

interface Received {
  body: Buffer;
  signature: string | undefined;
}

let fake: StripeFake;
let receiver: Server;
const received: Received[] = [];
let rail: CardRail;
let cfg: CardRailConfig;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), signature: req.headers['stripe-signature'] as string | undefined });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`;
  fake = await startStripeFake({ webhookEndpoints: [{ url: hookUrl, secret: WEBHOOK_SECRET }] });
  cfg = {
    secretKey: fake.secretKey,
    webhookSecret: WEBHOOK_SECRET,
    api: { host: fake.host, port: fake.port, protocol: 'http' },
    successUrl: 'http://cutroom.test/paid?session={CHECKOUT_SESSION_ID}',
    cancelUrl: 'http://cutroom.test/canceled',
    maxNetworkRetries: 0,
  };
  rail = createCardRail(cfg);
});

afterAll(async () => {
  await fake?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const token = (amountLimit: number | null = 1000) => fake.createSharedPaymentToken({ maxAmount: amountLimit }).id;
const sptInput = (spt: string, amountCents: number, key: string) => ({
  spt,
  amountCents,
  currency: 'usd',
  idempotencyKey: key,
  metadata: { job_id: `job-${key}` },
});
const intent = (id: string) => fake.state.paymentIntents.get(id);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );

describe('hosted checkout', () => {
  let sessionId: string;

  it('creates a session for a job, pays it, and delivers a webhook that verifies', async () => {
    const created = await rail.createCheckout({ jobId: 'job-42', amountCents: 450, description: 'Clips from video', idempotencyKey: 'checkout-job-42' });
    sessionId = created.id;
    expect(created.url).toBe(`${fake.url}/c/pay/${created.id}`);
    expect(await rail.getCheckout(created.id)).toEqual({
      id: created.id,
      url: created.url,
      status: 'open',
      paymentStatus: 'unpaid',
      paymentIntentId: null,
      amountTotal: 450,
      jobId: 'job-42',
    });
    // A retried create with the same key is the same session.
    expect((await rail.createCheckout({ jobId: 'job-42', amountCents: 450, description: 'Clips from video', idempotencyKey: 'checkout-job-42' })).id).toBe(
      created.id,
    );

    const pay = await fetch(`${fake.url}/__fake/checkout/sessions/${created.id}/pay`, { method: 'POST' });
    const outcome = (await pay.json()) as { deliveries: Array<{ ok: boolean; status: number }>; payment_intent: { id: string } };
    expect(outcome.deliveries).toEqual([expect.objectContaining({ ok: true, status: 200 })]);

    const delivery = received.at(-1) as Received;
    const event = rail.verifyWebhook(delivery.body, delivery.signature);
    expect(event.type).toBe('checkout.session.completed');
    const session = event.data.object as Stripe.Checkout.Session;
    expect(session).toMatchObject({ id: created.id, payment_status: 'paid', metadata: { job_id: 'job-42' }, amount_total: 450 });

    expect(await rail.getCheckout(created.id)).toMatchObject({
      status: 'complete',
      paymentStatus: 'paid',
      paymentIntentId: outcome.payment_intent.id,
      url: null,
    });
    expect(intent(outcome.payment_intent.id)).toMatchObject({ status: 'succeeded', amount_received: 450, metadata: { job_id: 'job-42' } });
  });

  it('rejects an altered body, a re-serialized body, a missing signature and a wrong secret', () => {
    const delivery = received.at(-1) as Received;
    const tampered = delivery.body.toString('utf8').replace('"amount_total": 450', '"amount_total": 1');
    expect(tampered).not.toBe(delivery.body.toString('utf8'));
    const reserialized = JSON.stringify(JSON.parse(delivery.body.toString('utf8')));
    const otherRail = createCardRail({ ...cfg, webhookSecret: 'whsec_someone_else' });
    for (const attempt of [
      () => rail.verifyWebhook(tampered, delivery.signature),
      () => rail.verifyWebhook(reserialized, delivery.signature),
      () => rail.verifyWebhook(delivery.body, undefined),
      () => rail.verifyWebhook(delivery.body, 't=1,v1=deadbeef'),
      () => otherRail.verifyWebhook(delivery.body, delivery.signature),
    ]) {
      expect(attempt).toThrow(PaymentProblem);
      expect(() => attempt()).toThrow(expect.objectContaining({ type: 'verification-failed' }));
    }
  });

  it('rejects a correctly signed delivery whose timestamp is too old (a replay)', async () => {
    const event = fake.state.events.find((e) => e.type === 'checkout.session.completed') as { id: string };
    const before = received.length;
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    await fetch(`${fake.url}/__fake/events/${event.id}/deliver`, { method: 'POST', body: JSON.stringify({ timestamp: tenMinutesAgo }) });
    const stale = received[before] as Received;
    expect(() => rail.verifyWebhook(stale.body, stale.signature)).toThrow(/outside the tolerance/);
    // The same delivery is fine for a receiver whose clock says it just arrived.
    const clock = createManualClock(new Date((tenMinutesAgo + 5) * 1000));
    expect(createCardRail({ ...cfg, clock }).verifyWebhook(stale.body, stale.signature).id).toBe(event.id);
  });

  it('refuses to pay a completed session again and reports unknown sessions as not found', async () => {
    expect((await fetch(`${fake.url}/__fake/checkout/sessions/${sessionId}/pay`, { method: 'POST' })).status).toBe(400);
    const err = await failure(rail.getCheckout('cs_test_unknown'));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'not_found' });
  });
});

describe('Shared Payment Token charges', () => {
  it('charges a token', async () => {
    const spt = token(1000);
    const { paymentIntentId } = await rail.chargeSpt(sptInput(spt, 500, 'charge-1'));
    expect(intent(paymentIntentId)).toMatchObject({ status: 'succeeded', amount_received: 500, currency: 'usd', metadata: { job_id: 'job-charge-1' } });
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(500);
  });

  it('repeats an idempotent charge without charging twice', async () => {
    const spt = token(1000);
    const first = await rail.chargeSpt(sptInput(spt, 400, 'charge-2'));
    const second = await rail.chargeSpt(sptInput(spt, 400, 'charge-2'));
    expect(second.paymentIntentId).toBe(first.paymentIntentId);
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(400);
    expect([...fake.state.charges.values()].filter((c) => c.payment_intent === first.paymentIntentId)).toHaveLength(1);
  });

  it('settles concurrent duplicates of one credential once', async () => {
    const spt = token(1000);
    const results = await Promise.all([1, 2, 3].map(() => rail.chargeSpt(sptInput(spt, 300, 'charge-concurrent'))));
    expect(new Set(results.map((r) => r.paymentIntentId)).size).toBe(1);
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(300);
  });

  it('answers an unknown, over-limit or revoked token with verification-failed and no secret in the detail', async () => {
    const limited = token(300);
    const revoked = token(1000);
    await fetch(`${fake.url}/__fake/shared_payment_tokens/${revoked}/revoke`, { method: 'POST' });
    const cases = [
      ['spt_unknown_token', 'unknown-1'],
      [limited, 'over-limit-1'],
      [revoked, 'revoked-1'],
    ] as const;
    for (const [spt, key] of cases) {
      const err = await failure(rail.chargeSpt(sptInput(spt, 500, key)));
      expect(err, spt).toBeInstanceOf(PaymentProblem);
      expect(err).toMatchObject({ type: 'verification-failed' });
      expect((err as Error).message).not.toContain(spt);
      expect((err as Error).message).not.toContain(fake.secretKey);
    }
    expect(fake.state.sharedPaymentTokens.get(limited)?.amountUsed).toBe(0);
  });

  it('refuses the same challenge key with other payment details', async () => {
    const spt = token(null);
    await rail.chargeSpt(sptInput(spt, 500, 'charge-3'));
    const err = await failure(rail.chargeSpt(sptInput(spt, 900, 'charge-3')));
    expect(err).toMatchObject({ type: 'verification-failed' });
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(500);
  });
});

describe('holds', () => {
  it('holds 450, captures 100 and releases the rest', async () => {
    const spt = token(450);
    const hold = await rail.authorizeHold(sptInput(spt, 450, 'hold-1'));
    expect(hold.amountCapturable).toBe(450);
    expect(intent(hold.paymentIntentId)?.status).toBe('requires_capture');
    expect(await rail.capture(hold.paymentIntentId, 100, 'capture-1')).toEqual({ amountReceived: 100 });
    expect(intent(hold.paymentIntentId)).toMatchObject({ status: 'succeeded', amount_received: 100, amount_capturable: 0 });
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(100);
    // A retry of the same capture, or one under a new key, reports the capture that happened.
    expect(await rail.capture(hold.paymentIntentId, 100, 'capture-1')).toEqual({ amountReceived: 100 });
    expect(await rail.capture(hold.paymentIntentId, 100, 'capture-1-again')).toEqual({ amountReceived: 100 });
  });

  it('releases a hold: canceled, and the token gets its limit back', async () => {
    const spt = token(450);
    const hold = await rail.authorizeHold(sptInput(spt, 450, 'hold-2'));
    await rail.release(hold.paymentIntentId, 'release-2');
    expect(intent(hold.paymentIntentId)).toMatchObject({ status: 'canceled', amount_capturable: 0 });
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(0);
    await rail.release(hold.paymentIntentId, 'release-2-again'); // already released: a no-op
  });

  it('treats a capture of 0 as a release', async () => {
    const hold = await rail.authorizeHold(sptInput(token(), 450, 'hold-3'));
    expect(await rail.capture(hold.paymentIntentId, 0, 'capture-3')).toEqual({ amountReceived: 0 });
    expect(intent(hold.paymentIntentId)?.status).toBe('canceled');
  });

  it('refuses to capture more than the hold as payment-insufficient', async () => {
    const hold = await rail.authorizeHold(sptInput(token(), 450, 'hold-4'));
    const err = await failure(rail.capture(hold.paymentIntentId, 451, 'capture-4'));
    expect(err).toMatchObject({ type: 'payment-insufficient', status: 402 });
    expect(intent(hold.paymentIntentId)?.status).toBe('requires_capture');
  });
});

describe('refunds', () => {
  it('refunds partially, then the rest, then refuses a third refund', async () => {
    const { paymentIntentId } = await rail.chargeSpt(sptInput(token(), 1000, 'refund-charge-1'));
    const partial = await rail.refund(paymentIntentId, 'refund-1a', 300);
    expect(partial.kind).toBe('refund');
    expect(fake.state.refunds.get(partial.id)).toMatchObject({ amount: 300, payment_intent: paymentIntentId });
    // Retrying the same refund does not refund again.
    expect((await rail.refund(paymentIntentId, 'refund-1a', 300)).id).toBe(partial.id);
    const rest = await rail.refund(paymentIntentId, 'refund-1b');
    expect(fake.state.refunds.get(rest.id)?.amount).toBe(700);
    const charge = fake.state.charges.get(intent(paymentIntentId)?.latest_charge as string);
    expect(charge).toMatchObject({ amount_refunded: 1000, refunded: true });
    const err = await failure(rail.refund(paymentIntentId, 'refund-1c'));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'conflict' });
  });

  it('refuses a refund beyond what is left', async () => {
    const { paymentIntentId } = await rail.chargeSpt(sptInput(token(), 1000, 'refund-charge-2'));
    await rail.refund(paymentIntentId, 'refund-2a', 800);
    const err = await failure(rail.refund(paymentIntentId, 'refund-2b', 300));
    expect(err).toMatchObject({ code: 'conflict' });
    expect(fake.state.charges.get(intent(paymentIntentId)?.latest_charge as string)?.amount_refunded).toBe(800);
  });

  it('cancels an uncaptured hold instead of refunding it', async () => {
    const hold = await rail.authorizeHold(sptInput(token(), 450, 'hold-5'));
    expect(await rail.refund(hold.paymentIntentId, 'refund-5')).toEqual({ id: hold.paymentIntentId, kind: 'cancel' });
    expect(intent(hold.paymentIntentId)?.status).toBe('canceled');
    expect(await rail.refund(hold.paymentIntentId, 'refund-5-again')).toEqual({ id: hold.paymentIntentId, kind: 'cancel' });
  });
});

describe('processor failures', () => {
  it('turns a 5xx into a plain Error (the caller answers 503)', async () => {
    fake.injectFault({ status: 503, count: 1 });
    const err = await failure(rail.chargeSpt(sptInput(token(), 500, 'outage-1')));
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PaymentProblem);
    expect(err).not.toBeInstanceOf(AppError);
    expect((err as Error).message).toMatch(/unavailable/);
  });

  it('retries a 5xx when retries are enabled, charging once', async () => {
    const retrying = createCardRail({ ...cfg, maxNetworkRetries: 2 });
    const spt = token(1000);
    fake.injectFault({ status: 500, count: 1, path_prefix: '/v1/payment_intents' });
    const { paymentIntentId } = await retrying.chargeSpt(sptInput(spt, 500, 'outage-2'));
    expect(intent(paymentIntentId)?.status).toBe('succeeded');
    expect(fake.state.sharedPaymentTokens.get(spt)?.amountUsed).toBe(500);
  });

  it('turns an unreachable processor into a plain Error', async () => {
    const down = createCardRail({ ...cfg, api: { host: '127.0.0.1', port: await freePort(), protocol: 'http' } });
    const err = await failure(down.chargeSpt(sptInput(token(), 500, 'down-1')));
    expect(err).not.toBeInstanceOf(PaymentProblem);
    expect((err as Error).message).toMatch(/unavailable/);
  });
});
