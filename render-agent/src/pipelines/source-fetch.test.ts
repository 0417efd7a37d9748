import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportedFailureMessage } from '@cutroom/shared/failure-details';
import { wavBytes } from '@cutroom/shared/testing/media-bytes';
import { systemClock } from '../clock.ts';
import type { PipelineError } from '../errors.ts';
import { type FetchSettings, fetchRemoteSource, type RemoteSource } from './source-fetch.ts';

/** fetchRemoteSource against a local server (reached only through the test allowance for 127.0.0.1, as in the flows). */
let server: http.Server;
let base: string;
let stored: Buffer | null = null;
const wav = wavBytes(40_000);
const dir = mkdtempSync(join(tmpdir(), 'cutroom-source-fetch-'));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.method === 'PUT' && req.url === '/store') {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        stored = Buffer.concat(parts);
        res.writeHead(200).end();
      });
      return;
    }
    switch (req.url) {
      case '/talk.wav':
        return res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length }).end(wav);
      case '/share/talk':
        return res.writeHead(302, { location: '/talk.wav' }).end();
      case '/watch':
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>My talk</title></head><body>…</body></html>');
      case '/big':
        return res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': 50_000_000 }).end(wav);
      case '/endless': {
        // No length announced; more bytes than the limit.
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write(wav);
        res.write(wav);
        return res.end(wav);
      }
      case '/drip': {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write(wav.subarray(0, 100));
        return; // and never more
      }
      default:
        return res.writeHead(404).end('not here');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const settings = { allowAddresses: ['127.0.0.1'] };
const source = (path: string, o: Partial<RemoteSource> = {}): RemoteSource => ({
  url: `${base}${path}`,
  max_bytes: 200_000,
  timeout_ms: 5_000,
  allow_http: true,
  put: { key: 'jobs/x/outputs/a/source', put_url: `${base}/store`, content_type: 'audio/wav' },
  ...o,
});
let n = 0;
const fetchTo = (src: RemoteSource, s: FetchSettings = settings) => fetchRemoteSource(src, join(dir, `f${n++}`), new AbortController().signal, systemClock, s);

/** The failure a refused fetch reports, and the sentence the caller reads. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; params: unknown; says: string }> {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as PipelineError | null;
  if (!err) throw new Error('the fetch did not fail');
  expect(err.name).toBe('PipelineError');
  return { code: err.code, params: err.detail?.params, says: reportedFailureMessage(err.code, err.detail, {}) };
}

describe('fetchRemoteSource', () => {
  it('fetches a media file (following a redirect), stores it as the source and reports progress', async () => {
    const progress: number[] = [];
    const size = await fetchRemoteSource(source('/share/talk'), join(dir, 'ok'), new AbortController().signal, systemClock, settings, (r) => progress.push(r));
    expect(size).toBe(wav.length);
    expect(stored?.equals(wav)).toBe(true);
    expect(progress.at(-1)).toBe(wav.length);
  });

  it('refuses a web page, an error answer, a file over the limit (announced or not) and a stalled transfer', async () => {
    expect(await refusal(fetchTo(source('/watch')))).toEqual({
      code: 'source_url_failed',
      params: { reason: 'not_media', looks_like: 'web_page' },
      says: 'the file at the source_url is a web page, not audio or video: give the URL of the media file itself',
    });
    expect(await refusal(fetchTo(source('/missing')))).toMatchObject({
      params: { reason: 'http_status', http_status: 404 },
      says: 'the source_url answered HTTP 404, not the file',
    });
    expect(await refusal(fetchTo(source('/big')))).toMatchObject({ params: { reason: 'too_large', max_bytes: 200_000 } });
    expect(await refusal(fetchTo(source('/endless')))).toMatchObject({ params: { reason: 'too_large' } });
    const started = Date.now();
    expect(await refusal(fetchTo(source('/drip', { timeout_ms: 500 })))).toMatchObject({ params: { reason: 'timed_out' } });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('refuses private and loopback addresses, names resolving to them, and http unless allowed', async () => {
    // Without the test allowance the local server is loopback like any other.
    expect(await refusal(fetchTo(source('/talk.wav'), {}))).toMatchObject({
      params: { reason: 'refused_address', range: 'loopback' },
      says: 'the source_url (or a redirect from it) points to a loopback address: only public addresses are fetched',
    });
    expect(await refusal(fetchTo(source('/x', { url: 'http://169.254.169.254/latest/meta-data/' })))).toMatchObject({
      params: { reason: 'refused_address', range: 'link_local' },
    });
    expect(await refusal(fetchTo(source('/x', { url: 'https://[fd00:ec2::254]/' })))).toMatchObject({
      params: { reason: 'refused_address', range: 'unique_local' },
    });
    const resolve = async () => [{ address: '192.168.1.20', family: 4 }];
    expect(await refusal(fetchTo(source('/x', { url: 'https://nas.example/talk.mp4' }), { resolve }))).toMatchObject({
      params: { reason: 'refused_address', range: 'private' },
    });
    expect(await refusal(fetchTo(source('/talk.wav', { allow_http: false })))).toMatchObject({ params: { reason: 'refused_scheme' } });
    expect(await refusal(fetchTo(source('/x', { url: 'https://user:pw@media.example/a.wav' })))).toMatchObject({ params: { reason: 'refused_url' } });
  });
});
