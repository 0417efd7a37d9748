import { Challenge as MppxChallenge } from 'mppx';
import { Mppx, stripe as stripeClient } from 'mppx/client';
import { Methods as StripeMethods } from 'mppx/stripe';
import { describe, expect, it } from 'vitest';
import { PaymentProblem } from '../types.ts';
import { type Challenge, createChallenge, decodeRequest, formatWwwAuthenticate } from './challenge.ts';
import { assertRequestBinding, parsePaymentAuthorization, verifyChallengeEcho } from './credential.ts';
import { buildStripeRequest, canOfferStripe, checkStripeCredential, parseStripePayload, parseStripeRequest, stripeIdempotencyKey } from './stripe-method.ts';

const secret = 'test-secret-test-secret-test-secret!';
const realm = 'cutroom.test';

function problemOf(fn: () => unknown): PaymentProblem {
  try {
    fn();
  } catch (e) {
    if (e instanceof PaymentProblem) return e;
    throw e;
  }
  throw new Error('expected a PaymentProblem');
}

function stripeChallenge(externalId?: string): Challenge {
  const request = buildStripeRequest({ amount: 450n, networkId: 'profile_test_123', description: 'clips job 7', ...(externalId && { externalId }) });
  return createChallenge({
    secret,
    realm,
    method: 'stripe',
    intent: 'charge',
    expires: new Date(Date.now() + 10 * 60_000),
    request: request as unknown as Record<string, unknown>,
  });
}

describe('buildStripeRequest', () => {
  it('produces exactly mppx stripe.charge request output, hence the same challenge id', () => {
    const expires = '2030-01-02T03:04:05.000Z';
    const ours = createChallenge({
      secret,
      realm,
      method: 'stripe',
      intent: 'charge',
      expires,
      request: buildStripeRequest({ amount: 450n, networkId: 'profile_1', externalId: 'job-7', metadata: { job: '7' } }) as unknown as Record<string, unknown>,
    });
    const theirs = MppxChallenge.fromMethod(StripeMethods.charge, {
      secretKey: secret,
      realm,
      expires,
      request: {
        amount: '4.50',
        currency: 'usd',
        decimals: 2,
        networkId: 'profile_1',
        paymentMethodTypes: ['card'],
        externalId: 'job-7',
        metadata: { job: '7' },
      },
    });
    expect(decodeRequest(ours)).toEqual(theirs.request);
    expect(ours.id).toBe(theirs.id);
    expect(formatWwwAuthenticate(ours)).toBe(MppxChallenge.serialize(theirs));
  });

  it('defaults to usd/card and validates input', () => {
    expect(buildStripeRequest({ amount: 100n, networkId: 'n' })).toEqual({
      amount: '100',
      currency: 'usd',
      methodDetails: { networkId: 'n', paymentMethodTypes: ['card'] },
    });
    expect(() => buildStripeRequest({ amount: 0n, networkId: 'n' })).toThrow();
    expect(() => buildStripeRequest({ amount: 1n, networkId: '' })).toThrow();
    expect(() => buildStripeRequest({ amount: 1n, networkId: 'n', metadata: { externalId: 'x' } })).toThrow();
    expect(() => buildStripeRequest({ amount: 1n, networkId: 'n', paymentMethodTypes: [] })).toThrow();
  });

  it('canOfferStripe applies the 50-cent usd minimum', () => {
    expect(canOfferStripe(49n)).toBe(false);
    expect(canOfferStripe(50n)).toBe(true);
    expect(canOfferStripe(1n, 'jpy')).toBe(true);
  });

  it('parseStripeRequest round-trips ours and refuses others', () => {
    const r = buildStripeRequest({ amount: 450n, networkId: 'n', externalId: 'e' });
    expect(parseStripeRequest(r as unknown as Record<string, unknown>)).toEqual(r);
    expect(problemOf(() => parseStripeRequest({ amount: '450', currency: 'usd' })).type).toBe('invalid-challenge');
    expect(problemOf(() => parseStripeRequest({ ...r, amount: '4.50' })).type).toBe('invalid-challenge');
  });
});

describe('parseStripePayload', () => {
  it('accepts {spt} and {spt, externalId}', () => {
    expect(parseStripePayload({ spt: 'spt_123' })).toEqual({ spt: 'spt_123' });
    expect(parseStripePayload({ spt: 'spt_123', externalId: 'job-1', extra: true })).toEqual({ spt: 'spt_123', externalId: 'job-1' });
  });

  it.each([
    ['string payload', 'spt_123'],
    ['null', null],
    ['missing spt', {}],
    ['numeric spt', { spt: 123 }],
    ['empty spt', { spt: '' }],
    ['spt with spaces', { spt: 'spt 1' }],
    ['huge spt', { spt: `spt_${'a'.repeat(600)}` }],
    ['numeric externalId', { spt: 'spt_1', externalId: 7 }],
  ])('refuses %s as malformed-credential', (_name, payload) => {
    const p = problemOf(() => parseStripePayload(payload));
    expect(p.type).toBe('malformed-credential');
    expect(p.status).toBe(402);
  });

  it('checkStripeCredential requires the externalId echo when the request has one', () => {
    const request = buildStripeRequest({ amount: 450n, networkId: 'n', externalId: 'job-1' });
    expect(() => checkStripeCredential({ request, payload: { spt: 's', externalId: 'job-1' } })).not.toThrow();
    expect(problemOf(() => checkStripeCredential({ request, payload: { spt: 's' }, challengeId: 'c' })).type).toBe('invalid-challenge');
    expect(() => checkStripeCredential({ request: buildStripeRequest({ amount: 450n, networkId: 'n' }), payload: { spt: 's' } })).not.toThrow();
  });

  it('idempotency key matches mppx', () => {
    expect(stripeIdempotencyKey('cid', 'spt_1')).toBe('mpp_cid_spt_1');
  });
});

describe('interop: mppx stock client pays our stripe challenge', () => {
  it('produces {spt, externalId} our parser and HMAC check accept', async () => {
    const ch = stripeChallenge('job-7');
    const seen: Record<string, unknown>[] = [];
    const mppx = Mppx.create({
      polyfill: false,
      methods: [
        stripeClient({
          paymentMethod: 'pm_card_visa',
          createToken: async (p) => {
            seen.push({ amount: p.amount, currency: p.currency, networkId: p.networkId, expiresAt: p.expiresAt, paymentMethod: p.paymentMethod });
            return 'spt_test_abc123';
          },
        }),
      ],
    });
    const headers = new Headers();
    headers.append('WWW-Authenticate', formatWwwAuthenticate(ch));
    const header = await mppx.createCredential(new Response(null, { status: 402, headers }));

    expect(seen).toEqual([
      { amount: '450', currency: 'usd', networkId: 'profile_test_123', expiresAt: Math.floor(Date.parse(ch.expires) / 1000), paymentMethod: 'pm_card_visa' },
    ]);
    const cred = parsePaymentAuthorization(header);
    const echoed = verifyChallengeEcho(secret, cred.challenge, new Date());
    assertRequestBinding(decodeRequest(ch), echoed, ch.id);
    const request = parseStripeRequest(echoed, ch.id);
    const payload = parseStripePayload(cred.payload);
    expect(payload).toEqual({ spt: 'spt_test_abc123', externalId: 'job-7' });
    expect(() => checkStripeCredential({ request, payload, challengeId: ch.id })).not.toThrow();
    expect(cred.source).toBeUndefined();
  });
});
