// The fake's protocol behaviour, through the official client where one exists: API keys,
// idempotency, parameter validation, events, tokens and the hosted page.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeFake } from './index.ts';

let fake: StripeFake;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startStripeFake();
  stripe = new Stripe(fake.secretKey, { host: fake.host, port: fake.port, protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(() => fake.stop());

const checkoutParams = (unitAmount = 450): Stripe.Checkout.SessionCreateParams => ({
  mode: 'payment',
  line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: unitAmount, product_data: { name: 'Transcript' } } }],
  metadata: { job_id: 'job-1' },
  success_url: 'http://shop.test/ok?session={CHECKOUT_SESSION_ID}',
  cancel_url: 'http://shop.test/cancel',
});

describe('stripe fake', () => {
  it("refuses a wrong API key with 401 in Stripe's error shape", async () => {
    const wrong = new Stripe('sk_test_wrong_key_1234', { host: fake.host, port: fake.port, protocol: 'http', maxNetworkRetries: 0 });
    const err = await wrong.paymentIntents.retrieve('pi_x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect((err as Stripe.errors.StripeError).message).toMatch(/^Invalid API Key provided: sk_test_\*+1234$/);
    const res = await fetch(`${fake.url}/v1/payment_intents/pi_x`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/did not provide an API key/) } });
  });

  it('accepts Basic auth with the key as user name (curl -u, mppx)', async () => {
    const res = await fetch(`${fake.url}/v1/events?limit=1`, { headers: { authorization: `Basic ${btoa(`${fake.secretKey}:`)}` } });
    expect(res.status).toBe(200);
  });

  it('refuses unknown parameters like Stripe does', async () => {
    const err = await stripe.paymentIntents
      .create({ amount: 500, currency: 'usd', colour: 'red' } as Stripe.PaymentIntentCreateParams)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('enforces the minimum charge amount', async () => {
    const err = await stripe.paymentIntents.create({ amount: 49, currency: 'usd' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'amount_too_small', statusCode: 400 });
  });

  it('replays a request with the same Idempotency-Key and refuses other parameters under it', async () => {
    const first = await stripe.checkout.sessions.create(checkoutParams(), { idempotencyKey: 'idem-1' });
    const again = await stripe.checkout.sessions.create(checkoutParams(), { idempotencyKey: 'idem-1' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    const err = await stripe.checkout.sessions.create(checkoutParams(999), { idempotencyKey: 'idem-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect([...fake.state.checkoutSessions.values()].filter((s) => s.metadata['job_id'] === 'job-1' && s.amount_total === 999)).toHaveLength(0);
  });

  it('does not save a validation error under the key, so a corrected retry runs', async () => {
    await expect(stripe.paymentIntents.create({ amount: 10, currency: 'usd' }, { idempotencyKey: 'idem-2' })).rejects.toThrow();
    // Stripe saves nothing when validation fails before the endpoint runs, so the key is still free.
    const ok = await stripe.paymentIntents.create({ amount: 500, currency: 'usd' }, { idempotencyKey: 'idem-2' });
    expect(ok.status).toBe('requires_payment_method');
  });

  it('expires an open session once, recording checkout.session.expired', async () => {
    const session = await stripe.checkout.sessions.create(checkoutParams());
    const expired = await stripe.checkout.sessions.expire(session.id);
    expect(expired).toMatchObject({ status: 'expired', url: null });
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toThrow(/can be expired/);
    const events = await stripe.events.list({ type: 'checkout.session.expired', limit: 1 });
    expect(events.data[0]?.data.object).toMatchObject({ id: session.id, status: 'expired' });
  });

  it('answers an unknown session with 404 resource_missing', async () => {
    const err = await stripe.checkout.sessions.retrieve('cs_test_nope').catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it("grants tokens through Stripe's test helper and declines beyond max_amount", async () => {
    const token = (await stripe.rawRequest('POST', '/v1/test_helpers/shared_payment/granted_tokens', {
      payment_method: 'pm_card_visa',
      usage_limits: { currency: 'usd', max_amount: 1000 },
    })) as unknown as { id: string; usage_limits: { max_amount: number } };
    expect(token.id).toMatch(/^spt_/);
    const pay = (amount: number) =>
      stripe.paymentIntents.create({ amount, currency: 'usd', confirm: true, shared_payment_granted_token: token.id } as Stripe.PaymentIntentCreateParams);
    expect((await pay(600)).status).toBe('succeeded');
    const err = await pay(600).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((err as Stripe.errors.StripeCardError).payment_intent?.status).toBe('requires_payment_method');
    expect((await pay(400)).status).toBe('succeeded');
    const view = (await stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${token.id}`, {})) as unknown as { deactivated_reason: string };
    expect(view.deactivated_reason).toBe('consumed');
  });

  it('serves a hosted page whose Pay button completes the session and redirects to success_url', async () => {
    const session = await stripe.checkout.sessions.create(checkoutParams());
    const page = await fetch(session.url as string);
    expect(await page.text()).toContain('Pay 4.50 USD');
    const paid = await fetch(session.url as string, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://shop.test/ok?session=${session.id}`);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ status: 'complete', payment_status: 'paid' });
  });

  it('fails injected requests: a 500 reaches the client as StripeAPIError', async () => {
    fake.injectFault({ status: 500, count: 1 });
    const err = await stripe.events.list({ limit: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
    await expect(stripe.events.list({ limit: 1 })).resolves.toBeTruthy();
  });

  it('says which endpoint it does not implement', async () => {
    const err = await stripe.customers.create({}).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 404, message: expect.stringMatching(/Unrecognized request URL \(POST: \/v1\/customers\)/) });
  });
});
