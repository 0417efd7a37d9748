import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError, answerFrameworkError, classifyInfraError, installErrorHandler } from './error-handler.ts';

describe('classifyInfraError', () => {
  it('finds text Postgres cannot store, through wrapping causes', () => {
    expect(classifyInfraError(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }))).toBe('unstorable_text');
    const wrapped = new Error('Failed query', { cause: Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' }) });
    expect(classifyInfraError(wrapped)).toBe('unstorable_text');
  });
  it('finds a dependency that is down', () => {
    for (const code of ['ECONNREFUSED', 'CONNECTION_CLOSED', '08006', '57P01', '53300', '57014']) {
      expect(classifyInfraError(Object.assign(new Error('down'), { code })), code).toBe('unavailable');
    }
  });
  it('leaves everything else alone', () => {
    expect(classifyInfraError(new Error('bug'))).toBeNull();
    expect(classifyInfraError(Object.assign(new Error('unique'), { code: '23505' }))).toBeNull();
    expect(classifyInfraError(null)).toBeNull();
  });
});

describe('error handler on a fastify app', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = Fastify({ frameworkErrors: answerFrameworkError, clientErrorHandler: answerClientError, logger: false });
    installErrorHandler(app);
    app.get('/jobs/:id', async (req) => ({ id: (req.params as { id: string }).id }));
    app.get('/nul', async () => {
      throw Object.assign(new Error('invalid byte sequence'), { code: '22021' });
    });
    app.get('/down', async () => {
      throw new Error('Failed query', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    });
    app.get('/bug', async () => {
      throw new Error('secret internals');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers an over-long path parameter with 400 {error}, not 414', async () => {
    const res = await app.inject({ method: 'GET', url: `/jobs/${'x'.repeat(101)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.stringMatching(/path parameter is too long/) });
  });

  it('answers a path that is not percent-encoded UTF-8 with 400 {error}', async () => {
    for (const url of ['/jobs/%zz', '/jobs/%FF', '/jobs/%E0%A4%A']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(Object.keys(res.json())).toEqual(['error']);
    }
  });

  it('maps database text refusals to 400 and outages to 503; hides other errors behind 500', async () => {
    expect((await app.inject({ method: 'GET', url: '/nul' })).statusCode).toBe(400);
    const down = await app.inject({ method: 'GET', url: '/down' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    const bug = await app.inject({ method: 'GET', url: '/bug' });
    expect(bug.statusCode).toBe(500);
    expect(bug.body).not.toContain('secret');
  });

  it('answers a 404 with {error} and a bounded message', async () => {
    const res = await app.inject({ method: 'GET', url: `/${'n'.repeat(5000)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.length).toBeLessThan(300);
  });

  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let out = '';
      socket.on('data', (d) => {
        out += d.toString('latin1');
      });
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });

  it('answers connection-level refusals (431, malformed request) with {error}', async () => {
    const big = await raw(`GET /jobs/1?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.stringMatching(/too large/) });
    const bad = await raw('NOT A REQUEST\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1.1 400 /);
    expect(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'malformed HTTP request' });
  });
});
