import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.ts';
import { PaymentProblem } from '../types.ts';
import { verifyStripeWebhook } from './card-webhook.ts';

const secret = 'whsec_unit';
const clock = createManualClock(new Date('2026-03-01T12:00:00Z'));
const nowSec = Math.floor(clock.now().getTime() / 1000);
const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: {} } }, null, 2);
const sign = (body: string, t = nowSec, key = secret) => Stripe.webhooks.generateTestHeaderString({ payload: body, secret: key, timestamp: t });
const verify = (body: string | Buffer, sig: string | undefined, toleranceSec = 300) =>
  verifyStripeWebhook(Stripe.webhooks, body, sig, { secret, toleranceSec, clock });

describe('verifyStripeWebhook', () => {
  it('accepts the raw body as a string or a Buffer', () => {
    expect(verify(payload, sign(payload)).id).toBe('evt_1');
    expect(verify(Buffer.from(payload), sign(payload)).type).toBe('checkout.session.completed');
  });

  it.each([
    ['no header', undefined, /no Stripe-Signature/],
    ['another secret', sign(payload, nowSec, 'whsec_other'), /does not match/],
    ['a garbled header', 'nonsense', /does not match/],
    ['a signature older than the tolerance', sign(payload, nowSec - 301), /tolerance/],
  ])('rejects %s', (_name, header, detail) => {
    expect(() => verify(payload, header)).toThrow(PaymentProblem);
    expect(() => verify(payload, header)).toThrow(detail);
  });

  it('rejects a body changed after signing', () => {
    expect(() => verify(payload.replace('evt_1', 'evt_2'), sign(payload))).toThrow(/does not match/);
  });

  it('never disables the age check, even with a tolerance of 0', () => {
    expect(() => verify(payload, sign(payload, nowSec - 3600), 0)).toThrow(/tolerance/);
  });
});
