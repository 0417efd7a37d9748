// BlobStore on a local folder, for single-machine installs and tests. Presigned URLs point at the
// coordinator itself (see local-blob-routes.ts), signed with an HMAC secret.
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { BlobHead, BlobStore, PresignGetOptions, PresignPutOptions } from './blob-store.ts';
import { BlobDeleteError, BlobNotFoundError, assertValidBlobKey, assertValidBlobPrefix } from './blob-store.ts';
import { assertValidContentType } from './content-disposition.ts';
import { META_SUFFIX, isCode, listKeysUnder, pruneEmptyDirs, writeFileAtomic } from './local-blob-files.ts';
import { buildSignedBlobUrl, verifySignedBlobQuery, type BlobUrlOp, type SignatureCheck } from './local-blob-signing.ts';

export interface LocalBlobStoreOptions {
  /** folder holding the blobs, conventionally `<dataDir>/blobs` */
  root: string;
  /** base URL clients reach the coordinator at, e.g. `http://127.0.0.1:8080` (no trailing path) */
  publicBaseUrl: string;
  /** HMAC key for presigned URLs; at least 16 characters */
  signingSecret: string;
  /** largest accepted presigned upload, bytes */
  maxUploadBytes: number;
  /** @default Date.now (ms) */
  clock?: () => number;
}

export interface LocalBlobFile {
  path: string;
  size: number;
  contentType: string | null;
}

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly maxUploadBytes: number;
  readonly #root: string;
  readonly #baseUrl: string;
  readonly #secret: string;
  readonly #clock: () => number;

  constructor(opts: LocalBlobStoreOptions) {
    if (opts.signingSecret.length < 16) {
      throw new Error('LocalBlobStore signingSecret must be at least 16 characters: generate a random one');
    }
    this.#root = resolve(opts.root);
    this.#baseUrl = opts.publicBaseUrl;
    this.#secret = opts.signingSecret;
    this.maxUploadBytes = opts.maxUploadBytes;
    this.#clock = opts.clock ?? Date.now;
  }

  async ensureReady(): Promise<void> {
    await mkdir(this.#root, { recursive: true });
  }

  async presignGet(key: string, opts: PresignGetOptions): Promise<string> {
    if (opts.contentType !== undefined) assertValidContentType(opts.contentType);
    return this.#presign('get', key, opts.expiresInSeconds, opts.contentType ?? '', opts.downloadFilename ?? '');
  }

  async presignPut(key: string, opts: PresignPutOptions): Promise<string> {
    assertValidContentType(opts.contentType);
    return this.#presign('put', key, opts.expiresInSeconds, opts.contentType, '');
  }

  #presign(op: BlobUrlOp, key: string, expiresIn: number, ct: string, fn: string): string {
    assertValidBlobKey(key);
    const exp = Math.floor(this.#clock() / 1000) + Math.max(1, Math.ceil(expiresIn));
    return buildSignedBlobUrl(this.#baseUrl, this.#secret, { op, key, exp, ct, fn });
  }

  /** For the HTTP routes: is this query a valid, unexpired signature for `op` on `key`? */
  verifyRequest(op: BlobUrlOp, key: string, query: Record<string, unknown>): SignatureCheck {
    return verifySignedBlobQuery(this.#secret, op, key, query, this.#clock());
  }

  /** Where a stored blob lives on disk, or null when absent. */
  async locate(key: string): Promise<LocalBlobFile | null> {
    const path = this.#pathOf(key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return null; // a folder is only a prefix of other keys
      return { path, size: info.size, contentType: await this.#readType(path) };
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return null;
      throw err;
    }
  }

  async head(key: string): Promise<BlobHead | null> {
    const file = await this.locate(key);
    return file && { size: file.size, contentType: file.contentType };
  }

  async getBytes(key: string, firstBytes?: number): Promise<Buffer> {
    const file = await this.locate(key);
    if (!file) throw new BlobNotFoundError(key);
    if (firstBytes === undefined) return readFile(file.path);
    const handle = await open(file.path, 'r');
    try {
      const buf = Buffer.alloc(firstBytes);
      const { bytesRead } = await handle.read(buf, 0, firstBytes, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<void> {
    await this.putStream(key, Readable.from([Buffer.from(body)]), contentType, Infinity);
  }

  /** Streams an upload to disk; throws BlobTooLargeError past maxBytes (nothing is stored then). */
  async putStream(key: string, source: Readable, contentType: string, maxBytes: number): Promise<number> {
    assertValidContentType(contentType);
    const path = this.#pathOf(key);
    const size = await writeFileAtomic(path, source, maxBytes);
    // Written after the data: a reader may briefly pair new bytes with the old type, never a
    // type with missing bytes. Not atomic with the data rename, which is fine for media blobs.
    await writeFile(path + META_SUFFIX, JSON.stringify({ contentType }));
    return size;
  }

  async delete(key: string): Promise<void> {
    const path = this.#pathOf(key);
    await this.#removeFiles(path);
    await pruneEmptyDirs(this.#root, dirname(path));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidBlobPrefix(prefix);
    // Only the folder that contains the prefix's last segment can hold matching keys.
    const slash = prefix.lastIndexOf('/');
    const baseDir = slash < 0 ? this.#root : join(this.#root, prefix.slice(0, slash));
    const keys = (await listKeysUnder(this.#root, baseDir)).filter((k) => k.startsWith(prefix));
    // One file that cannot be removed must not keep the others: try them all, then report.
    const failures: { key: string; reason: string }[] = [];
    for (const key of keys) {
      try {
        await this.delete(key);
      } catch (err) {
        failures.push({ key, reason: err instanceof Error ? err.message : String(err) });
      }
    }
    if (failures.length) throw new BlobDeleteError(prefix, failures, keys.length - failures.length);
    return keys.length;
  }

  async move(from: string, to: string): Promise<BlobHead | null> {
    const src = this.#pathOf(from);
    const dst = this.#pathOf(to);
    const file = await this.locate(from);
    if (!file) return null;
    // One rename: a reader of `to` sees the old or the new bytes, never a part. A concurrent
    // delete may prune the target's folder between mkdir and rename (see pruneEmptyDirs): retry.
    for (let attempt = 1; ; attempt++) {
      await mkdir(dirname(dst), { recursive: true });
      try {
        await rename(src, dst);
        break;
      } catch (err) {
        if (!isCode(err, 'ENOENT')) throw err;
        if (!(await this.locate(from))) return null; // moved or deleted since locate()
        if (attempt >= 3) throw err;
      }
    }
    // The type travels with the bytes; a file without a sidecar loses the old one's.
    if (file.contentType === null) await unlinkIfPresent(dst + META_SUFFIX);
    else await writeFile(dst + META_SUFFIX, JSON.stringify({ contentType: file.contentType }));
    await unlinkIfPresent(src + META_SUFFIX);
    await pruneEmptyDirs(this.#root, dirname(src));
    return this.head(to);
  }

  async #removeFiles(path: string): Promise<void> {
    for (const file of [path, path + META_SUFFIX]) await unlinkIfPresent(file);
  }

  async #readType(path: string): Promise<string | null> {
    try {
      const meta: unknown = JSON.parse(await readFile(path + META_SUFFIX, 'utf8'));
      const type = (meta as { contentType?: unknown }).contentType;
      return typeof type === 'string' ? type : null;
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null; // a file dropped in by hand has no recorded type
      throw err;
    }
  }

  #pathOf(key: string): string {
    assertValidBlobKey(key); // also guarantees the path stays inside root
    return join(this.#root, key);
  }
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    // Absent, or a folder (the key is only a prefix of other keys): nothing to delete.
    if (!['ENOENT', 'ENOTDIR', 'EISDIR'].some((c) => isCode(err, c))) throw err;
  }
}
