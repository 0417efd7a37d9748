import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerLocalBlobRoutes, type BlobWriteCheck } from './local-blob-routes.ts';
import { LocalBlobStore } from './local-blob-store.ts';

let root: string;
let now: number;
let store: LocalBlobStore;
let app: FastifyInstance;
const MAX = 2 * 1024 * 1024; // above fastify's default 1 MiB bodyLimit, which must not apply here

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'local-blob-routes-'));
  now = 1_700_000_000_000;
  store = new LocalBlobStore({
    root,
    publicBaseUrl: 'http://cutroom.test',
    signingSecret: 'test-secret-0123456789',
    maxUploadBytes: MAX,
    clock: () => now,
  });
  app = Fastify();
  registerLocalBlobRoutes(app, store);
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await rm(root, { recursive: true, force: true });
});

const pathOf = (url: string) => url.replace('http://cutroom.test', '');
const putUrl = (key = 'jobs/a/source', contentType = 'video/mp4') => store.presignPut(key, { expiresInSeconds: 60, contentType }).then(pathOf);
const getUrl = (key = 'jobs/a/source', extra: { contentType?: string; downloadFilename?: string } = {}) =>
  store.presignGet(key, { expiresInSeconds: 60, ...extra }).then(pathOf);

describe('PUT /blobs/*', () => {
  it('streams the body to the store, bigger than fastify bodyLimit', async () => {
    const body = Buffer.alloc(1_500_000, 7);
    const res = await app.inject({ method: 'PUT', url: await putUrl(), payload: body, headers: { 'content-type': 'video/mp4' } });
    expect(res.statusCode).toBe(200);
    expect(await store.head('jobs/a/source')).toEqual({ size: body.length, contentType: 'video/mp4' });
  });

  it('stores application/json bodies verbatim instead of parsing them', async () => {
    const body = '{ "a": 1 }';
    const res = await app.inject({
      method: 'PUT',
      url: await putUrl('jobs/a/x.json', 'application/json'),
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect((await store.getBytes('jobs/a/x.json')).toString()).toBe(body);
  });

  it('answers 400 when Content-Type differs from the signed one, or is missing', async () => {
    const url = await putUrl();
    const wrong = await app.inject({ method: 'PUT', url, payload: 'x', headers: { 'content-type': 'audio/wav' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toContain('Content-Type: video/mp4');
    const missing = await app.inject({ method: 'PUT', url, payload: Buffer.from('x') });
    expect(missing.statusCode).toBe(400);
    expect(await store.head('jobs/a/source')).toBeNull();
  });

  it('answers 413 from Content-Length, before reading the body', async () => {
    const res = await app.inject({ method: 'PUT', url: await putUrl(), payload: Buffer.alloc(MAX + 1), headers: { 'content-type': 'video/mp4' } });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatch(/larger than the \d+-byte limit/);
  });

  it('answers 413 for a chunked body that grows past the limit, and deletes the partial file', async () => {
    const chunks = Array.from({ length: 5 }, () => Buffer.alloc(MAX / 4));
    const res = await app.inject({ method: 'PUT', url: await putUrl(), payload: Readable.from(chunks), headers: { 'content-type': 'video/mp4' } });
    expect(res.statusCode).toBe(413);
    expect(await store.head('jobs/a/source')).toBeNull();
    expect(await readdir(join(root, 'jobs', 'a'))).toEqual([]);
  });

  it('answers 403 for a GET URL used to upload', async () => {
    const res = await app.inject({ method: 'PUT', url: await getUrl(), payload: 'x', headers: { 'content-type': 'video/mp4' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toContain('op=get');
  });
});

describe('PUT /blobs/* with a write check', () => {
  async function appWith(acceptsWrite: BlobWriteCheck) {
    const guarded = Fastify();
    registerLocalBlobRoutes(guarded, store, { acceptsWrite });
    await guarded.ready();
    return guarded;
  }

  it('refuses before reading the body when the check says the URL’s purpose is over', async () => {
    const guarded = await appWith(async () => ({ allowed: false, status: 409, message: 'the upload of job a is closed' }));
    const res = await guarded.inject({ method: 'PUT', url: await putUrl(), payload: 'x', headers: { 'content-type': 'video/mp4' } });
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'the upload of job a is closed' }]);
    expect(res.headers.connection).toBe('close');
    expect(await store.head('jobs/a/source')).toBeNull();
    await guarded.close();
  });

  it('takes the write back when the purpose ended while the body streamed', async () => {
    let calls = 0;
    const guarded = await appWith(async () => (++calls === 1 ? { allowed: true } : { allowed: false, status: 409, message: 'closed meanwhile' }));
    const res = await guarded.inject({ method: 'PUT', url: await putUrl(), payload: 'x', headers: { 'content-type': 'video/mp4' } });
    expect([res.statusCode, calls]).toEqual([409, 2]);
    expect(await store.head('jobs/a/source')).toBeNull();
    await guarded.close();
  });

  it('checks nothing but the signature without a check', async () => {
    const res = await app.inject({ method: 'PUT', url: await putUrl(), payload: 'x', headers: { 'content-type': 'video/mp4' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('signature checks', () => {
  const tamper = (url: string, name: string, value: string) => {
    const u = new URL(url, 'http://x');
    u.searchParams.set(name, value);
    return u.pathname + u.search;
  };

  it.each([
    ['exp', (u: string) => tamper(u, 'exp', '9999999999')],
    ['ct', (u: string) => tamper(u, 'ct', 'text/html')],
    ['fn', (u: string) => tamper(u, 'fn', 'evil.html')],
    ['sig', (u: string) => tamper(u, 'sig', 'AAAA')],
    ['key', (u: string) => u.replace('jobs/a/source', 'jobs/b/source')],
    ['missing sig', (u: string) => u.replace(/&sig=[^&]*/, '')],
  ])('refuses a URL with an altered %s (403, JSON error)', async (_name, alter) => {
    await store.put('jobs/a/source', 'x', 'video/mp4');
    await store.put('jobs/b/source', 'y', 'video/mp4');
    const res = await app.inject({ method: 'GET', url: alter(await getUrl('jobs/a/source', { downloadFilename: 'a.mp4' })) });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json().error).toMatch(/new download URL/);
  });

  it('refuses an expired URL', async () => {
    await store.put('jobs/a/source', 'x', 'video/mp4');
    const url = await getUrl();
    now += 61_000;
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toContain('expired');
  });

  it.each(['jobs/a..b/source', 'jobs/a%20b', 'jobs//x'])('answers 400 for the invalid key %s', async (key) => {
    const res = await app.inject({ method: 'GET', url: `/blobs/${key}?op=get&exp=1&sig=x` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('invalid blob key');
  });
});

describe('GET /blobs/*', () => {
  const bytes = Buffer.from('0123456789abcdefghij');
  beforeEach(async () => store.put('jobs/a/source', bytes, 'video/mp4'));

  it('serves the bytes with the stored type, length and range support', async () => {
    const res = await app.inject({ method: 'GET', url: await getUrl() });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload).toEqual(bytes);
    expect(res.headers).toMatchObject({ 'content-type': 'video/mp4', 'content-length': '20', 'accept-ranges': 'bytes' });
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('honours a signed type override and download filename', async () => {
    const res = await app.inject({
      method: 'GET',
      url: await getUrl('jobs/a/source', { contentType: 'application/octet-stream', downloadFilename: 'clip.mp4' }),
    });
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="clip.mp4"; filename*=UTF-8''clip.mp4`);
  });

  it.each([
    ['bytes=2-5', '2345', 'bytes 2-5/20'],
    ['bytes=18-', 'ij', 'bytes 18-19/20'],
    ['bytes=-3', 'hij', 'bytes 17-19/20'],
    ['bytes=15-99', 'fghij', 'bytes 15-19/20'],
  ])('answers Range %s with 206', async (range, body, contentRange) => {
    const res = await app.inject({ method: 'GET', url: await getUrl(), headers: { range } });
    expect(res.statusCode).toBe(206);
    expect(res.body).toBe(body);
    expect(res.headers['content-range']).toBe(contentRange);
    expect(res.headers['content-length']).toBe(String(body.length));
  });

  it('answers 416 for a range past the end', async () => {
    const res = await app.inject({ method: 'GET', url: await getUrl(), headers: { range: 'bytes=20-' } });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */20');
    expect(res.json().error).toContain('outside');
  });

  it('answers HEAD with headers only', async () => {
    const res = await app.inject({ method: 'HEAD', url: await getUrl() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('20');
    expect(res.body).toBe('');
  });

  it('uploads and serves an empty blob', async () => {
    const put = await app.inject({ method: 'PUT', url: await putUrl('jobs/a/empty', 'text/plain'), payload: '', headers: { 'content-type': 'text/plain' } });
    expect(put.statusCode).toBe(200);
    const res = await app.inject({ method: 'GET', url: await getUrl('jobs/a/empty') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.body).toBe('');
  });

  it('answers 404 with JSON for a missing blob', async () => {
    const res = await app.inject({ method: 'GET', url: await getUrl('jobs/none/source') });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toContain('does not exist');
  });
});

describe('the OpenAPI document', () => {
  it('does not list the blob routes: presigned URLs are handed out by the API, not part of it', async () => {
    const withDoc = Fastify();
    await withDoc.register(fastifySwagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    withDoc.get('/visible', async () => ({}));
    registerLocalBlobRoutes(withDoc, store);
    await withDoc.ready();
    const doc = withDoc.swagger() as unknown as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(['/visible']);
    await withDoc.close();
  });
});
