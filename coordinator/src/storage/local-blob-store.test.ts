import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobDeleteError, BlobNotFoundError, InvalidBlobKeyError } from './blob-store.ts';
import { BlobTooLargeError } from './local-blob-files.ts';
import { LocalBlobStore } from './local-blob-store.ts';

let root: string;
let store: LocalBlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'local-blob-store-'));
  store = new LocalBlobStore({
    root: join(root, 'blobs'),
    publicBaseUrl: 'http://cutroom.test/',
    signingSecret: 'test-secret-0123456789',
    maxUploadBytes: 1024,
    clock: () => 1_700_000_000_000,
  });
  await store.ensureReady();
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('LocalBlobStore', () => {
  it('stores bytes with their content type', async () => {
    await store.put('jobs/a/source', Buffer.from('hello'), 'audio/wav');
    expect(await store.head('jobs/a/source')).toEqual({ size: 5, contentType: 'audio/wav' });
    expect((await store.getBytes('jobs/a/source')).toString()).toBe('hello');
  });

  it('reports absent keys as null / BlobNotFoundError, including folders that are only prefixes', async () => {
    await store.put('jobs/a/source', 'x', 'text/plain');
    expect(await store.head('jobs/a')).toBeNull();
    expect(await store.head('jobs/a/source/deeper')).toBeNull();
    await expect(store.getBytes('jobs/a')).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.delete('jobs/a')).resolves.toBeUndefined();
  });

  it('deletes idempotently and prunes emptied folders', async () => {
    await store.put('jobs/a/source', 'x', 'text/plain');
    await store.delete('jobs/a/source');
    await store.delete('jobs/a/source');
    expect(await readdir(join(root, 'blobs'))).toEqual([]);
  });

  it('deletePrefix removes only matching keys and counts them (side files are not counted)', async () => {
    for (const k of ['jobs/a/source', 'jobs/a/out/clip.mp4', 'jobs/ab/source', 'jobs/b/source']) {
      await store.put(k, 'x', 'text/plain');
    }
    expect(await store.deletePrefix('jobs/a/')).toBe(2);
    expect(await store.head('jobs/ab/source')).not.toBeNull();
    expect(await store.deletePrefix('jobs/a')).toBe(1);
    expect(await store.deletePrefix('jobs/zzz/')).toBe(0);
    expect(await store.head('jobs/b/source')).not.toBeNull();
  });

  it('deletePrefix goes on past a key it cannot delete, then names it', async () => {
    for (const k of ['jobs/a/source', 'jobs/a/stuck', 'jobs/a/upload']) await store.put(k, 'x', 'text/plain');
    const real = store.delete.bind(store);
    store.delete = async (key) => (key === 'jobs/a/stuck' ? Promise.reject(new Error('EPERM: operation not permitted')) : real(key));
    const err = await store.deletePrefix('jobs/a/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobDeleteError);
    expect(err).toMatchObject({ deleted: 2, failures: [{ key: 'jobs/a/stuck', reason: 'EPERM: operation not permitted' }] });
    expect(await store.head('jobs/a/source')).toBeNull();
    expect(await store.head('jobs/a/upload')).toBeNull();
    expect(await store.head('jobs/a/stuck')).not.toBeNull();
  });

  it('moves a blob with its type, replacing the target; a missing one moves nothing', async () => {
    await store.put('jobs/a/upload', 'new bytes', 'audio/wav');
    await store.put('jobs/a/source', 'old', 'audio/mpeg');
    expect(await store.move('jobs/a/upload', 'jobs/a/source')).toEqual({ size: 9, contentType: 'audio/wav' });
    expect((await store.getBytes('jobs/a/source')).toString()).toBe('new bytes');
    expect(await store.head('jobs/a/upload')).toBeNull();
    expect(await store.move('jobs/a/upload', 'jobs/a/source')).toBeNull();
    expect(await store.head('jobs/a/source')).toEqual({ size: 9, contentType: 'audio/wav' });
    expect(await readdir(join(root, 'blobs', 'jobs', 'a'))).toEqual(['source', 'source#meta.json']);
  });

  it('leaves no temp file behind when an upload exceeds the limit', async () => {
    const body = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(store.putStream('jobs/a/big', body, 'video/mp4', 1024)).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await readdir(join(root, 'blobs', 'jobs', 'a'))).toEqual([]);
  });

  it('returns a null type for a file without a sidecar', async () => {
    await store.put('jobs/a/x', 'x', 'text/plain');
    await rm(join(root, 'blobs', 'jobs', 'a', 'x#meta.json'));
    expect(await store.head('jobs/a/x')).toEqual({ size: 1, contentType: null });
  });

  it('refuses bad keys in every operation', async () => {
    await writeFile(join(root, 'secret'), 'x');
    await expect(store.getBytes('../secret')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.put('/abs', 'x', 'text/plain')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.presignGet('a b', { expiresInSeconds: 60 })).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.deletePrefix('')).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('presigns URLs on the public base URL with an expiry from the injected clock', async () => {
    const url = new URL(await store.presignPut('jobs/a/source', { expiresInSeconds: 60, contentType: 'audio/wav' }));
    expect(url.origin + url.pathname).toBe('http://cutroom.test/blobs/jobs/a/source');
    expect(url.searchParams.get('op')).toBe('put');
    expect(url.searchParams.get('exp')).toBe(String(1_700_000_000 + 60));
    expect(url.searchParams.get('ct')).toBe('audio/wav');
  });

  it('refuses a short signing secret', () => {
    expect(() => new LocalBlobStore({ root, publicBaseUrl: 'http://x', signingSecret: 'short', maxUploadBytes: 1 })).toThrow('at least 16');
  });
});
