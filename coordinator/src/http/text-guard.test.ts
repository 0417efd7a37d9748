import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandler } from './error-handler.ts';
import { findInvalidText, installTextGuard, requestTargetProblem, textProblem } from './text-guard.ts';

describe('textProblem', () => {
  it('accepts any valid Unicode text, including astral characters', () => {
    for (const s of ['', 'plain', 'café', '日本語', '😀 emoji', '\uFFFD', '\t\n\r', '\u0001']) expect(textProblem(s), s).toBeNull();
  });
  it('refuses NUL and lone surrogates', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('x\udc00')).toMatch(/surrogate/);
    expect(textProblem('😀'.slice(0, 1))).toMatch(/surrogate/);
  });
});

describe('findInvalidText', () => {
  it('walks objects and arrays and names the field', () => {
    expect(findInvalidText({ a: 'ok', b: [{ c: 'ok' }, { c: 'x\u0000' }] }, 'request body')).toBe(
      'request body field "b.1.c" contains a NUL character (U+0000), which cannot be stored',
    );
    expect(findInvalidText('top\u0000', 'request body')).toMatch(/^request body contains a NUL/);
    expect(findInvalidText({ ['k\u0000']: 1 }, 'request body')).toMatch(/field name that contains a NUL/);
    expect(findInvalidText({ a: 1, b: true, c: null, d: ['x', 2] }, 'request body')).toBeNull();
  });
  it('does not walk buffers or streams (raw bodies), and survives deep nesting', () => {
    expect(findInvalidText(Buffer.from([0, 0xff]), 'request body')).toBeNull();
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findInvalidText(deep, 'request body')).toMatch(/NUL/);
  });
});

describe('requestTargetProblem', () => {
  it.each(['/api/v1/jobs', '/x?a=1&b=two', '/x?q=caf%C3%A9&e=%F0%9F%98%80', '/x?a=1+2', '/x?flag', '/x?a=&b', '/x?', '/x?a=%25'])('accepts %s', (t) =>
    expect(requestTargetProblem(t)).toBeNull(),
  );

  it.each([
    ['/x?session_id=%00abc', /query parameter "session_id": its value contains a NUL/],
    ['/x?session_id=%FF', /query parameter "session_id": its value is not valid UTF-8/],
    ['/x?session_id=%ED%A0%80', /not valid UTF-8/], // an encoded surrogate
    ['/x?session_id=%zz', /query parameter "session_id": malformed percent-encoding in its value/],
    ['/x?session_id=%4', /malformed percent-encoding/],
    ['/x?a%00=1', /query parameter #1: its name contains a NUL/],
    ['/x?ok=1&%FF=1', /query parameter #2: its name is not valid UTF-8/],
    ['/x?a=b c', /raw space, control or non-ASCII/],
    ['/x\u0001?a=1', /raw space, control or non-ASCII/],
    ['/x?a=é', /raw space, control or non-ASCII/],
  ])('refuses %s', (t, pattern) => expect(requestTargetProblem(t)).toMatch(pattern));
});

describe('installTextGuard on a fastify app', () => {
  let app: FastifyInstance;
  const seen: unknown[] = [];
  beforeAll(async () => {
    app = Fastify();
    installErrorHandler(app);
    installTextGuard(app);
    app.get('/items/:id', async (req) => {
      seen.push(req.params);
      return { ok: true };
    });
    app.post('/items', async (req) => {
      seen.push(req.body);
      return { ok: true, body: req.body };
    });
    app.register(async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      raw.post('/raw', async (req) => ({ bytes: (req.body as Buffer).length }));
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const json = (payload: string) => app.inject({ method: 'POST', url: '/items', payload, headers: { 'content-type': 'application/json' } });

  it('lets valid text through', async () => {
    expect((await app.inject({ method: 'GET', url: '/items/caf%C3%A9?q=%F0%9F%98%80' })).statusCode).toBe(200);
    const res = await json('{"name":"café 😀","tags":["a","\\ud83d\\ude00"]}');
    expect(res.statusCode).toBe(200);
    expect(res.json().body).toEqual({ name: 'café 😀', tags: ['a', '😀'] });
    const withCharset = await app.inject({
      method: 'POST',
      url: '/items',
      payload: '{"a":"é"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(withCharset.json()).toEqual({ ok: true, body: { a: 'é' } });
  });

  it('refuses NUL in the query, a path parameter or a body string, before the handler', async () => {
    seen.length = 0;
    const cases = [
      [await app.inject({ method: 'GET', url: '/items/1?session_id=%00' }), /query parameter "session_id"/],
      [await app.inject({ method: 'GET', url: '/items/a%00b' }), /path parameter "id" contains a NUL/],
      [await json('{"name":"a\\u0000b"}'), /request body field "name" contains a NUL/],
      [await json('{"list":[{"deep":"\\ud800"}]}'), /request body field "list.0.deep" contains a lone UTF-16 surrogate/],
      [
        await app.inject({
          method: 'POST',
          url: '/items',
          payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
          headers: { 'content-type': 'application/json' },
        }),
        /request body is not valid UTF-8/,
      ],
    ] as const;
    for (const [res, pattern] of cases) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json().error).toMatch(pattern);
    }
    expect(seen).toEqual([]);
  });

  it('keeps the stock JSON parser behaviour (bad JSON, prototype poisoning, empty body)', async () => {
    expect((await json('{"a":')).statusCode).toBe(400);
    expect((await json('{"__proto__":{"x":1}}')).statusCode).toBe(400);
    expect((await json('')).statusCode).toBe(400);
  });

  it('leaves raw-body scopes alone (their bytes are not text)', async () => {
    const res = await app.inject({ method: 'POST', url: '/raw', payload: Buffer.from([0, 0xff, 0]), headers: { 'content-type': 'application/octet-stream' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ bytes: 3 });
  });
});
