import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader } from './signature.ts';

// The fake must sign exactly as Stripe does: the official client is the reference.
describe('webhook signature', () => {
  const secret = 'whsec_test_3f9a';
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed' }, null, 2);
  const t = 1_767_225_600;

  it('matches stripe.webhooks.generateTestHeaderString byte for byte', () => {
    expect(signatureHeader(payload, secret, t)).toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: t }));
  });

  it('is HMAC-SHA256 over "<t>.<payload>" in lowercase hex', () => {
    expect(computeSignature(payload, secret, t)).toMatch(/^[0-9a-f]{64}$/);
    expect(computeSignature(payload, secret, t)).not.toBe(computeSignature(payload, secret, t + 1));
    expect(computeSignature(payload, secret, t)).not.toBe(computeSignature(`${payload} `, secret, t));
  });

  it('is accepted by stripe.webhooks.constructEvent and refused with another secret', () => {
    const header = signatureHeader(payload, secret, t);
    const event = Stripe.webhooks.constructEvent(payload, header, secret, 300, undefined, (t + 10) * 1000);
    expect(event.id).toBe('evt_1');
    expect(() => Stripe.webhooks.constructEvent(payload, header, 'whsec_other', 300, undefined, (t + 10) * 1000)).toThrow(/No signatures found matching/);
  });
});
