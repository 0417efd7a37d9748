import { createHmac } from 'node:crypto';
import { Challenge as MppxChallenge } from 'mppx';
import { describe, expect, it } from 'vitest';
import { createChallenge, decodeRequest, encodeRequest, formatWwwAuthenticate, toJsonChallenge } from './challenge.ts';

const secret = 'test-secret-test-secret-test-secret!';
const expires = '2030-01-02T03:04:05.000Z';

function b64urlDecode(s: string): string {
  return Buffer.from(s, 'base64url').toString('utf8');
}

describe('createChallenge', () => {
  it('encodes the request as base64url (no padding) of JCS-canonical JSON', () => {
    const ch = createChallenge({
      secret,
      realm: 'cutroom.test',
      method: 'evm',
      intent: 'charge',
      expires,
      request: { z: '1', a: { y: 2, b: [3, { d: 1, c: 2 }] }, m: 'é' },
    });
    expect(ch.request).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(b64urlDecode(ch.request)).toBe('{"a":{"b":[3,{"c":2,"d":1}],"y":2},"m":"é","z":"1"}');
    expect(decodeRequest(ch)).toEqual({ z: '1', a: { y: 2, b: [3, { d: 1, c: 2 }] }, m: 'é' });
  });

  it('is independent of key insertion order', () => {
    const a = createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires, request: { amount: '1', currency: 'x' } });
    const b = createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires, request: { currency: 'x', amount: '1' } });
    expect(a).toEqual(b);
  });

  it('computes id = base64url(HMAC-SHA256(secret, realm|method|intent|request|expires|digest|opaque))', () => {
    const ch = createChallenge({
      secret,
      realm: 'cutroom.test',
      method: 'stripe',
      intent: 'charge',
      expires,
      request: { amount: '450', currency: 'usd' },
      description: 'not bound',
    });
    const input = ['cutroom.test', 'stripe', 'charge', ch.request, expires, '', ''].join('|');
    const expected = createHmac('sha256', secret).update(input).digest('base64url');
    expect(ch.id).toBe(expected);
    expect(ch.id).not.toContain('=');
    // description is not bound
    const without = createChallenge({
      secret,
      realm: 'cutroom.test',
      method: 'stripe',
      intent: 'charge',
      expires,
      request: { amount: '450', currency: 'usd' },
    });
    expect(without.id).toBe(ch.id);
  });

  it('changes the id when any bound field changes', () => {
    const base = { secret, realm: 'r', method: 'evm', intent: 'charge' as const, expires, request: { amount: '1' } };
    const id = createChallenge(base).id;
    expect(createChallenge({ ...base, realm: 'r2' }).id).not.toBe(id);
    expect(createChallenge({ ...base, method: 'stripe' }).id).not.toBe(id);
    expect(createChallenge({ ...base, request: { amount: '2' } }).id).not.toBe(id);
    expect(createChallenge({ ...base, expires: '2030-01-02T03:04:06.000Z' }).id).not.toBe(id);
    expect(createChallenge({ ...base, secret: `${secret}x` }).id).not.toBe(id);
  });

  it('accepts a Date for expires and emits RFC 3339', () => {
    const ch = createChallenge({
      secret,
      realm: 'r',
      method: 'evm',
      intent: 'charge',
      expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
      request: { amount: '1' },
    });
    expect(ch.expires).toBe(expires);
  });

  it('refuses method ids that are not lowercase letters and an empty secret', () => {
    expect(() => createChallenge({ secret, realm: 'r', method: 'EVM', intent: 'charge', expires, request: {} })).toThrow();
    expect(() => createChallenge({ secret, realm: 'r', method: 'ev-m', intent: 'charge', expires, request: {} })).toThrow();
    expect(() => createChallenge({ secret: '', realm: 'r', method: 'evm', intent: 'charge', expires, request: {} })).toThrow();
  });

  it('refuses a malformed expires string', () => {
    expect(() => createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires: 'tomorrow', request: {} })).toThrow();
  });
});

describe('formatWwwAuthenticate', () => {
  it('emits the Payment auth-params and round-trips through mppx', () => {
    const ch = createChallenge({
      secret,
      realm: 'cutroom.test',
      method: 'evm',
      intent: 'charge',
      expires,
      request: { amount: '10000' },
      description: 'transcribe job 3f',
    });
    const header = formatWwwAuthenticate(ch);
    expect(header).toBe(
      `Payment id="${ch.id}", realm="cutroom.test", method="evm", intent="charge", request="${ch.request}", description="transcribe job 3f", expires="${expires}"`,
    );
    const parsed = MppxChallenge.deserialize(header);
    expect(parsed.id).toBe(ch.id);
    expect(parsed.request).toEqual({ amount: '10000' });
    expect(MppxChallenge.verify(parsed, { secretKey: secret })).toBe(true);
    expect(MppxChallenge.verify(parsed, { secretKey: 'another-secret-another-secret-000' })).toBe(false);
  });

  it('escapes quotes, backslashes and non-Latin-1 text in description', () => {
    const description = 'clip "A" \\ — 🎬';
    const ch = createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires, request: { amount: '1' }, description });
    const header = formatWwwAuthenticate(ch);
    for (let i = 0; i < header.length; i++) expect(header.charCodeAt(i)).toBeLessThanOrEqual(0xff);
    expect(() => new Headers({ 'WWW-Authenticate': header })).not.toThrow();
    expect(MppxChallenge.deserialize(header).description).toBe(description);
  });

  it('two headers joined by a comma parse as two challenges (fetch Headers merging)', () => {
    const a = createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires, request: { amount: '1' } });
    const b = createChallenge({ secret, realm: 'r', method: 'stripe', intent: 'charge', expires, request: { amount: '50' } });
    const h = new Headers();
    h.append('WWW-Authenticate', formatWwwAuthenticate(a));
    h.append('WWW-Authenticate', formatWwwAuthenticate(b));
    const list = MppxChallenge.deserializeList(h.get('WWW-Authenticate')!);
    expect(list.map((c) => c.id)).toEqual([a.id, b.id]);
  });
});

describe('toJsonChallenge / encodeRequest', () => {
  it('decodes the request for MCP', () => {
    const ch = createChallenge({ secret, realm: 'r', method: 'evm', intent: 'charge', expires, request: { amount: '1' } });
    expect(toJsonChallenge(ch)).toEqual({ id: ch.id, realm: 'r', method: 'evm', intent: 'charge', request: { amount: '1' }, expires });
    expect(encodeRequest({ amount: '1' })).toBe(ch.request);
  });

  it('decodeRequest refuses non-object JSON', () => {
    expect(() => decodeRequest({ request: Buffer.from('[1]').toString('base64url') })).toThrow();
  });
});
