import { Challenge as MppxChallenge, Credential as MppxCredential } from 'mppx';
import { describe, expect, it } from 'vitest';
import { PaymentProblem } from '../types.ts';
import { createChallenge, type Challenge, toJsonChallenge } from './challenge.ts';
import { assertRequestBinding, hasPaymentCredential, parseCredentialObject, parsePaymentAuthorization, verifyChallengeEcho } from './credential.ts';

const secret = 'test-secret-test-secret-test-secret!';
const expires = '2030-01-02T03:04:05.000Z';
const before = new Date('2030-01-02T03:00:00Z');
const after = new Date('2030-01-02T03:04:06Z');
const request = {
  amount: '10000',
  currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  recipient: '0x1111111111111111111111111111111111111111',
  methodDetails: { chainId: 8453 },
};

function challenge(overrides: Partial<Parameters<typeof createChallenge>[0]> = {}): Challenge {
  return createChallenge({ secret, realm: 'cutroom.test', method: 'evm', intent: 'charge', expires, request, ...overrides });
}

/** Builds a credential header the way mppx's client does. */
function credentialFor(ch: Challenge, payload: unknown = { type: 'authorization' }, source?: string): string {
  const wire = MppxChallenge.deserialize(
    `Payment id="${ch.id}", realm="${ch.realm}", method="${ch.method}", intent="${ch.intent}", request="${ch.request}", expires="${ch.expires}"`,
  );
  return MppxCredential.serialize(MppxCredential.from({ challenge: wire, payload, ...(source && { source }) }));
}

function rawCredential(obj: unknown): string {
  return `Payment ${Buffer.from(JSON.stringify(obj)).toString('base64url')}`;
}

function problemOf(fn: () => unknown): PaymentProblem {
  try {
    fn();
  } catch (e) {
    if (e instanceof PaymentProblem) return e;
    throw e;
  }
  throw new Error('expected a PaymentProblem');
}

describe('parsePaymentAuthorization', () => {
  it('round-trips a credential built by mppx', () => {
    const ch = challenge();
    const parsed = parsePaymentAuthorization(credentialFor(ch, { type: 'authorization', x: 1 }, 'did:pkh:eip155:8453:0xabc'));
    expect(parsed.challenge).toEqual({ id: ch.id, realm: ch.realm, method: 'evm', intent: 'charge', request: ch.request, expires });
    expect(parsed.payload).toEqual({ type: 'authorization', x: 1 });
    expect(parsed.source).toBe('did:pkh:eip155:8453:0xabc');
    expect(verifyChallengeEcho(secret, parsed.challenge, before)).toEqual(request);
  });

  it('finds the Payment scheme among other schemes, case-insensitively', () => {
    const ch = challenge();
    const cred = credentialFor(ch);
    expect(parsePaymentAuthorization(`Bearer abc.def, ${cred}`).challenge.id).toBe(ch.id);
    expect(parsePaymentAuthorization(cred.replace(/^Payment/, 'payment')).challenge.id).toBe(ch.id);
    expect(hasPaymentCredential(cred)).toBe(true);
    expect(hasPaymentCredential('Bearer abc')).toBe(false);
    expect(hasPaymentCredential(undefined)).toBe(false);
  });

  it('canonicalizes a re-ordered echoed request so the HMAC still verifies', () => {
    const ch = challenge();
    const reordered = Buffer.from(
      JSON.stringify({ recipient: request.recipient, methodDetails: request.methodDetails, currency: request.currency, amount: request.amount }),
    ).toString('base64url');
    const header = rawCredential({ challenge: { id: ch.id, realm: ch.realm, method: 'evm', intent: 'charge', request: reordered, expires }, payload: {} });
    const parsed = parsePaymentAuthorization(header);
    expect(parsed.challenge.request).toBe(ch.request);
    expect(verifyChallengeEcho(secret, parsed.challenge, before)).toEqual(request);
  });

  it.each([
    ['wrong scheme', 'Bearer abc'],
    ['empty', ''],
    ['no token', 'Payment '],
    ['bad base64url', 'Payment !!!not-base64!!!'],
    ['not JSON', `Payment ${Buffer.from('hello').toString('base64url')}`],
    ['JSON without challenge', rawCredential({ payload: {} })],
    ['challenge missing id', rawCredential({ challenge: { realm: 'r', method: 'evm', intent: 'charge', request: 'e30' }, payload: {} })],
    ['challenge with empty id', rawCredential({ challenge: { id: '', realm: 'r', method: 'evm', intent: 'charge', request: 'e30' }, payload: {} })],
    ['request not JSON', rawCredential({ challenge: { id: 'x', realm: 'r', method: 'evm', intent: 'charge', request: 'bm9wZQ' }, payload: {} })],
    ['expires malformed', rawCredential({ challenge: { id: 'x', realm: 'r', method: 'evm', intent: 'charge', request: 'e30', expires: 'soon' }, payload: {} })],
    ['payload missing', rawCredential({ challenge: { id: 'x', realm: 'r', method: 'evm', intent: 'charge', request: 'e30' } })],
    ['payload a string', rawCredential({ challenge: { id: 'x', realm: 'r', method: 'evm', intent: 'charge', request: 'e30' }, payload: 'sig' })],
    ['payload an array', rawCredential({ challenge: { id: 'x', realm: 'r', method: 'evm', intent: 'charge', request: 'e30' }, payload: [] })],
    ['too large', `Payment ${'A'.repeat(20_000)}`],
  ])('refuses %s as malformed-credential (402)', (_name, header) => {
    const p = problemOf(() => parsePaymentAuthorization(header));
    expect(p.type).toBe('malformed-credential');
    expect(p.status).toBe(402);
  });
});

describe('verifyChallengeEcho', () => {
  const parsed = () => parsePaymentAuthorization(credentialFor(challenge())).challenge;

  it('detects tampering with any bound field', () => {
    const base = parsed();
    const tampered = [
      { ...base, realm: 'evil.test' },
      { ...base, method: 'stripe' },
      { ...base, intent: 'session' },
      { ...base, request: Buffer.from(JSON.stringify({ ...request, amount: '1' })).toString('base64url') },
      { ...base, expires: '2099-01-01T00:00:00.000Z' },
      { ...base, digest: 'sha-256=:abc:' },
      { ...base, opaque: 'e30' },
      { ...base, header: 'Payment-Authorization' },
      { ...base, id: `${base.id.slice(0, -2)}AA` },
    ];
    for (const echoed of tampered) {
      const p = problemOf(() => verifyChallengeEcho(secret, echoed, before));
      expect(p.type).toBe('invalid-challenge');
      expect(p.status).toBe(402);
      expect(p.challengeId).toBe(echoed.id);
    }
    expect(problemOf(() => verifyChallengeEcho('some-other-secret-some-other-secret', base, before)).type).toBe('invalid-challenge');
    expect(problemOf(() => verifyChallengeEcho('', base, before)).type).toBe('invalid-challenge');
  });

  it('does not bind description', () => {
    const base = parsed();
    expect(verifyChallengeEcho(secret, { ...base, description: 'changed' }, before)).toEqual(request);
  });

  it('reports an expired challenge as payment-expired, after the HMAC check', () => {
    const base = parsed();
    const p = problemOf(() => verifyChallengeEcho(secret, base, after));
    expect(p.type).toBe('payment-expired');
    expect(p.status).toBe(402);
    expect(p.challengeId).toBe(base.id);
    expect(verifyChallengeEcho(secret, base, new Date(expires))).toEqual(request);
    // a forged expiry is an HMAC failure, not an expiry
    expect(problemOf(() => verifyChallengeEcho(secret, { ...base, expires: '2000-01-01T00:00:00Z' }, after)).type).toBe('invalid-challenge');
  });

  it('fails closed on a challenge without expires, even with a valid HMAC', () => {
    const noExpiry = MppxChallenge.from({ secretKey: secret, realm: 'cutroom.test', method: 'evm', intent: 'charge', request });
    const header = MppxCredential.serialize(MppxCredential.from({ challenge: noExpiry, payload: {} }));
    const echoed = parsePaymentAuthorization(header).challenge;
    expect(echoed.expires).toBeUndefined();
    expect(problemOf(() => verifyChallengeEcho(secret, echoed, before)).type).toBe('invalid-challenge');
  });

  it('refuses an undecodable echoed request as invalid-challenge', () => {
    expect(problemOf(() => verifyChallengeEcho(secret, { ...parsed(), request: 'bm9wZQ' }, before)).type).toBe('invalid-challenge');
  });
});

describe('parseCredentialObject (MCP _meta form)', () => {
  it('accepts the object form with request as JSON', () => {
    const ch = challenge();
    const obj = { challenge: toJsonChallenge(ch), payload: { spt: 'spt_1' }, source: 'did:x' };
    const parsed = parseCredentialObject(obj);
    expect(parsed.challenge.request).toBe(ch.request);
    expect(parsed.source).toBe('did:x');
    expect(verifyChallengeEcho(secret, parsed.challenge, before)).toEqual(request);
  });

  it('refuses non-objects and objects without payload', () => {
    for (const v of [null, 'Payment abc', { challenge: {} }, { payload: {} }]) {
      expect(problemOf(() => parseCredentialObject(v)).type).toBe('malformed-credential');
    }
  });
});

describe('assertRequestBinding', () => {
  it('passes for the same purchase and ignores description', () => {
    expect(() => assertRequestBinding({ ...request, description: 'a' }, { ...request, description: 'b' }, 'c')).not.toThrow();
  });

  it.each([
    ['amount', { ...request, amount: '9999' }],
    ['currency', { ...request, currency: '0x0000000000000000000000000000000000000001' }],
    ['recipient', { ...request, recipient: '0x2222222222222222222222222222222222222222' }],
    ['externalId', { ...request, externalId: 'job-2' }],
    ['methodDetails.chainId', { ...request, methodDetails: { chainId: 84532 } }],
  ])('refuses a different %s as invalid-challenge', (field, echoed) => {
    const p = problemOf(() => assertRequestBinding(request, echoed, 'cid'));
    expect(p.type).toBe('invalid-challenge');
    expect(p.message).toContain(field);
    expect(p.challengeId).toBe('cid');
  });
});
