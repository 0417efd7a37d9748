import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { OutputTarget } from '@cutroom/proto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Clock, systemClock } from '../clock.ts';
import { PipelineError } from '../errors.ts';
import { uploadFile, uploadOutputs } from './http-transfer.ts';

// Uploads against a real HTTP server on loopback: what arrives is what the presigned URL's
// storage would see. The back-off sleeps return at once (the retry count is under test, not time).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutroom-http-transfer-'));
const clock: Clock = { ...systemClock, sleep: async () => {} };
const signal = new AbortController().signal;

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body, or only its length when the test said not to keep it. */
  body: Buffer | null;
  bytes: number;
}
const received: Received[] = [];
/** Statuses the next PUTs answer, in order; 200 once the list is empty. */
let statuses: number[] = [];
let keepBodies = true;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
      if (keepBodies) chunks.push(c);
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: keepBodies ? Buffer.concat(chunks) : null, bytes });
      const status = statuses.shift() ?? 200;
      const headers = status === 307 ? { location: '/elsewhere' } : {};
      res.writeHead(status, headers).end(status === 200 ? '' : `status ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  received.length = 0;
  statuses = [];
  keepBodies = true;
  vi.restoreAllMocks();
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const target = (name: string): OutputTarget => ({ put_url: `${base}/out/${name}?X-Amz-Signature=secret`, content_type: 'video/mp4', key: `k/${name}` });

function randomFile(name: string, bytes: number): { file: string; body: Buffer } {
  const file = path.join(dir, name);
  const body = crypto.randomBytes(bytes);
  fs.writeFileSync(file, body);
  return { file, body };
}

describe('uploadFile', () => {
  it('streams the file with its content type and an explicit content-length, bytes intact', async () => {
    const { file, body } = randomFile('clip.mp4', 3 * 1024 * 1024 + 7);
    const readFile = vi.spyOn(fs.promises, 'readFile');
    const readFileSync = vi.spyOn(fs, 'readFileSync');
    await expect(uploadFile('clip', target('clip'), file, signal, clock)).resolves.toBe(body.length);
    expect(received).toHaveLength(1);
    const [put] = received;
    expect(put!.url).toBe('/out/clip?X-Amz-Signature=secret');
    expect(put!.headers).toMatchObject({ 'content-type': 'video/mp4', 'content-length': String(body.length) });
    // S3 presigned PUTs refuse chunked uploads.
    expect(put!.headers['transfer-encoding']).toBeUndefined();
    expect(put!.body!.equals(body)).toBe(true);
    expect(readFile).not.toHaveBeenCalled();
    expect(readFileSync).not.toHaveBeenCalled();
  });

  it('sends an empty file as an empty body', async () => {
    const { file } = randomFile('empty.mp4', 0);
    await expect(uploadFile('clip', target('clip'), file, signal, clock)).resolves.toBe(0);
    expect(received[0]).toMatchObject({ bytes: 0, headers: { 'content-length': '0' } });
  });

  it('retries a 5xx from the start of the file: the retry carries the whole body', async () => {
    const { file, body } = randomFile('retried.mp4', 1024 * 1024);
    statuses = [503, 500];
    await expect(uploadFile('clip', target('clip'), file, signal, clock)).resolves.toBe(body.length);
    expect(received).toHaveLength(3);
    for (const put of received) {
      expect(put.headers['content-length']).toBe(String(body.length));
      expect(put.body!.equals(body)).toBe(true);
    }
  });

  it('gives up after three tries, and does not retry a 4xx; the message hides the signature', async () => {
    const { file } = randomFile('refused.mp4', 1000);
    statuses = [503, 503, 503];
    const failed = await uploadFile('clip', target('clip'), file, signal, clock).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(PipelineError);
    expect(failed).toMatchObject({ code: 'output_upload_failed', message: `could not upload clip to ${base}/out/clip: HTTP 503: status 503` });
    expect(received).toHaveLength(3);

    received.length = 0;
    statuses = [403];
    await expect(uploadFile('clip', target('clip'), file, signal, clock)).rejects.toMatchObject({ code: 'output_upload_failed' });
    expect(received).toHaveLength(1);
  });

  it('does not follow a redirect (a presigned PUT is signed for its own host)', async () => {
    const { file } = randomFile('redirected.mp4', 1000);
    statuses = [307, 307, 307];
    await expect(uploadFile('clip', target('clip'), file, signal, clock)).rejects.toMatchObject({ code: 'output_upload_failed' });
    expect(received.map((r) => r.url.split('?')[0])).toEqual(['/out/clip', '/out/clip', '/out/clip']);
  });

  it('does not hold the file in memory: a 400 MB upload grows RSS far less than that', async () => {
    // Sparse: no disk is written, and reading it yields zeros.
    const size = 400 * 1024 * 1024;
    const file = path.join(dir, 'big.mp4');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, size);
    keepBodies = false;
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    try {
      await expect(uploadFile('clip', target('clip'), file, signal, clock)).resolves.toBe(size);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(received[0]).toMatchObject({ bytes: size, headers: { 'content-length': String(size) } });
    // Streamed, it grows by the chunks not yet collected on both ends of the loopback (50–70 MB
    // here, whatever the size); a body held whole, as fetch does when it may follow a redirect, adds
    // the whole file.
    expect(peak - before).toBeLessThan(size / 3);
  });
});

describe('uploadOutputs', () => {
  it('streams file outputs, sends buffers as they are, and reports each byte count', async () => {
    const { file, body } = randomFile('clip-2.mp4', 5000);
    const doc = Buffer.from('{"v":1}\n');
    const outputs = await uploadOutputs(
      { clip: target('clip'), subjects: target('subjects') },
      { clip: () => ({ file }), subjects: () => ({ body: doc }) },
      signal,
      clock,
    );
    expect(outputs).toEqual([
      { name: 'clip', bytes: body.length },
      { name: 'subjects', bytes: doc.length },
    ]);
    expect(received.map((r) => [r.url.split('?')[0], r.body!.length])).toEqual([
      ['/out/clip', body.length],
      ['/out/subjects', doc.length],
    ]);
  });

  it('refuses an output it has no source for', async () => {
    await expect(uploadOutputs({ other: target('other') }, { clip: () => ({ body: Buffer.alloc(1) }) }, signal, clock)).rejects.toMatchObject({
      code: 'internal',
    });
    expect(received).toHaveLength(0);
  });
});
