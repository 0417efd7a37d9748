// One behavioural contract for every BlobStore: the coordinator and agents must not be able to
// tell the local store (served by a real fastify listener) from S3 (a real MinIO server).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, InvalidBlobKeyError, type BlobStore } from '../coordinator/src/storage/blob-store.ts';
import { registerLocalBlobRoutes } from '../coordinator/src/storage/local-blob-routes.ts';
import { LocalBlobStore } from '../coordinator/src/storage/local-blob-store.ts';
import { S3BlobStore } from '../coordinator/src/storage/s3-blob-store.ts';
import { freePort, startS3 } from './fixtures/index.ts';

export interface StoreUnderTest {
  store: BlobStore;
  close(): Promise<void>;
}

export function describeBlobStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: BlobStore;
    // Every test writes under its own prefix, so tests never see each other's keys.
    const prefix = () => `jobs/${randomUUID()}/`;

    beforeAll(async () => {
      sut = await makeStore();
      store = sut.store;
      await store.ensureReady();
      await store.ensureReady(); // idempotent
    });
    afterAll(async () => sut?.close());

    it('puts, heads, reads and overwrites', async () => {
      const key = `${prefix()}transcript.srt`;
      await store.put(key, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', 'application/x-subrip');
      expect(await store.head(key)).toEqual({ size: 35, contentType: 'application/x-subrip' });
      await store.put(key, Buffer.from([0, 1, 2, 255]), 'application/octet-stream');
      expect(await store.head(key)).toEqual({ size: 4, contentType: 'application/octet-stream' });
      expect(await store.getBytes(key)).toEqual(Buffer.from([0, 1, 2, 255]));
      // A ranged read: the first bytes only, or the whole object when it is shorter.
      expect(await store.getBytes(key, 2)).toEqual(Buffer.from([0, 1]));
      expect(await store.getBytes(key, 4100)).toEqual(Buffer.from([0, 1, 2, 255]));
    });

    it('reports missing keys: head null, getBytes BlobNotFoundError, delete idempotent', async () => {
      const key = `${prefix()}source`;
      expect(await store.head(key)).toBeNull();
      await expect(store.getBytes(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.getBytes(key, 16)).rejects.toBeInstanceOf(BlobNotFoundError);
      await store.put(key, 'x', 'text/plain');
      await store.delete(key);
      await store.delete(key);
      expect(await store.head(key)).toBeNull();
    });

    it('deletePrefix deletes exactly the keys under the prefix and counts them', async () => {
      const p = prefix();
      const other = prefix();
      for (const k of ['source', 'out/a.mp4', 'out/b.mp4']) await store.put(p + k, k, 'text/plain');
      await store.put(`${other}source`, 'keep', 'text/plain');
      expect(await store.deletePrefix(`${p}out/`)).toBe(2);
      expect(await store.deletePrefix(p)).toBe(1);
      expect(await store.deletePrefix(p)).toBe(0);
      expect(await store.getBytes(`${other}source`)).toEqual(Buffer.from('keep'));
    });

    it('moves an object inside the store with its type; a URL signed for the old key cannot change it', async () => {
      const p = prefix();
      const url = await store.presignPut(`${p}upload`, { expiresInSeconds: 60, contentType: 'audio/wav' });
      expect((await fetch(url, { method: 'PUT', body: 'first', headers: { 'content-type': 'audio/wav' } })).status).toBe(200);
      await store.put(`${p}source`, 'an older source', 'audio/mpeg');
      expect(await store.move(`${p}upload`, `${p}source`)).toEqual({ size: 5, contentType: 'audio/wav' });
      expect(await store.head(`${p}upload`)).toBeNull();
      // The upload URL is still valid: what it writes lands beside the committed object, never in it.
      expect((await fetch(url, { method: 'PUT', body: 'second, longer', headers: { 'content-type': 'audio/wav' } })).status).toBe(200);
      expect(await store.getBytes(`${p}source`)).toEqual(Buffer.from('first'));
      expect(await store.move(`${p}missing`, `${p}elsewhere`)).toBeNull();
      expect(await store.head(`${p}elsewhere`)).toBeNull();
    });

    it('accepts a presigned PUT from plain fetch, and refuses another Content-Type', async () => {
      const key = `${prefix()}source`;
      const body = Buffer.alloc(300_000, 42);
      const url = await store.presignPut(key, { expiresInSeconds: 60, contentType: 'video/mp4' });
      const wrong = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'text/html' } });
      expect(wrong.status).toBeGreaterThanOrEqual(400);
      expect(wrong.status).toBeLessThan(500);
      expect(await store.head(key)).toBeNull();
      const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'video/mp4' } });
      expect(res.status).toBe(200);
      expect(await store.head(key)).toEqual({ size: body.length, contentType: 'video/mp4' });
    });

    it('serves a presigned GET, with ranges and an optional download filename', async () => {
      const key = `${prefix()}clip.mp4`;
      await store.put(key, '0123456789', 'video/mp4');
      const plain = await fetch(await store.presignGet(key, { expiresInSeconds: 60 }));
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe('video/mp4');
      expect(plain.headers.get('content-disposition')).toBeNull();
      expect(await plain.text()).toBe('0123456789');

      const url = await store.presignGet(key, { expiresInSeconds: 60, downloadFilename: 'my clip.mp4' });
      const ranged = await fetch(url, { headers: { range: 'bytes=2-4' } });
      expect(ranged.status).toBe(206);
      expect(await ranged.text()).toBe('234');
      expect(ranged.headers.get('content-disposition')).toMatch(/^attachment; filename="my clip.mp4"/);
    });

    it('refuses an expired presigned URL', async () => {
      const key = `${prefix()}source`;
      await store.put(key, 'x', 'text/plain');
      const getUrl = await store.presignGet(key, { expiresInSeconds: 1 });
      const putUrl = await store.presignPut(key, { expiresInSeconds: 1, contentType: 'text/plain' });
      await sleep(2100);
      expect((await fetch(getUrl)).status).toBe(403);
      const put = await fetch(putUrl, { method: 'PUT', body: 'y', headers: { 'content-type': 'text/plain' } });
      expect(put.status).toBe(403);
      expect(await store.getBytes(key)).toEqual(Buffer.from('x'));
    });

    it('rejects bad keys before touching storage', async () => {
      for (const bad of ['../etc/passwd', '/jobs/x', 'jobs/a b', 'jobs//x']) {
        await expect(store.head(bad)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.put(bad, 'x', 'text/plain')).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.presignPut(bad, { expiresInSeconds: 60, contentType: 'text/plain' })).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
      await expect(store.deletePrefix('')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    });
  });
}

describeBlobStoreContract('local disk served by fastify', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cutroom-blobs-'));
  const port = await freePort();
  const store = new LocalBlobStore({
    root: join(dir, 'blobs'),
    publicBaseUrl: `http://127.0.0.1:${port}`,
    signingSecret: randomUUID(),
    maxUploadBytes: 10 * 1024 * 1024,
  });
  const app = Fastify();
  registerLocalBlobRoutes(app, store);
  await app.listen({ host: '127.0.0.1', port });
  return {
    store,
    close: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeBlobStoreContract('S3 (MinIO)', async () => {
  const { stop, ...connection } = await startS3();
  return { store: new S3BlobStore({ ...connection, forcePathStyle: true }), close: stop };
});

describe('S3 (MinIO): moving an object above the single-copy limit', () => {
  let s3: Awaited<ReturnType<typeof startS3>>;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => s3?.stop());

  it('copies it part by part inside S3, then removes the original', async () => {
    const { stop: _stop, ...connection } = s3;
    // CopyObject stops at 5 GiB; with the limit set low, a 6 MiB object takes the multipart path.
    const store = new S3BlobStore({ ...connection, forcePathStyle: true, maxSingleCopyBytes: 1024, copyPartBytes: 5 * 1024 * 1024 });
    const p = `jobs/${randomUUID()}/`;
    const body = Buffer.alloc(6 * 1024 * 1024 + 123, 7);
    body.write('head', 0);
    body.write('tail', body.length - 4);
    await store.put(`${p}upload`, body, 'video/mp4');
    expect(await store.move(`${p}upload`, `${p}source`)).toEqual({ size: body.length, contentType: 'video/mp4' });
    expect((await store.getBytes(`${p}source`)).equals(body)).toBe(true);
    expect(await store.head(`${p}upload`)).toBeNull();
  });
});
