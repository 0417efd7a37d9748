// The storage port: the coordinator and agents exchange media through presigned URLs, so the
// same code runs against S3 in production and a local folder on a single machine.

export interface BlobHead {
  size: number;
  contentType: string | null;
}

export interface PresignGetOptions {
  expiresInSeconds: number;
  /** Overrides the Content-Type the download is served with. @default the stored type */
  contentType?: string;
  /** Sets `Content-Disposition: attachment; filename=…`. @default none (inline) */
  downloadFilename?: string;
}

export interface PresignPutOptions {
  expiresInSeconds: number;
  /** The uploader must send exactly this Content-Type header, or the upload is refused. */
  contentType: string;
}

export interface BlobStore {
  readonly kind: 's3' | 'local';
  presignGet(key: string, opts: PresignGetOptions): Promise<string>;
  presignPut(key: string, opts: PresignPutOptions): Promise<string>;
  /** null when absent */
  head(key: string): Promise<BlobHead | null>;
  /** The object, or only its first `firstBytes` bytes (a ranged read). Throws BlobNotFoundError when absent. */
  getBytes(key: string, firstBytes?: number): Promise<Buffer>;
  put(key: string, body: Buffer | string, contentType: string): Promise<void>;
  /** idempotent: deleting an absent key succeeds */
  delete(key: string): Promise<void>;
  /**
   * Deletes every key that starts with prefix; returns how many were deleted. A key that cannot
   * be deleted does not stop the others: they are all tried, then BlobDeleteError names the ones
   * left (the caller retries later).
   */
  deletePrefix(prefix: string): Promise<number>;
  /**
   * Moves the object at `from` to `to` inside the store (replacing `to`; no bytes pass through the
   * coordinator) and returns what `to` now holds, or null when `from` does not exist. Commits an
   * upload: a URL signed for `from` can never change the object at `to`.
   */
  move(from: string, to: string): Promise<BlobHead | null>;
  /** creates the bucket/folder if missing */
  ensureReady(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`blob "${key}" does not exist: it was never uploaded, or has expired and been deleted`);
    this.name = 'BlobNotFoundError';
    this.key = key;
  }
}

/** deletePrefix could not delete some keys (it deleted the others). */
export class BlobDeleteError extends Error {
  readonly prefix: string;
  /** The keys still there, with why (the first few). */
  readonly failures: readonly { key: string; reason: string }[];
  readonly deleted: number;
  constructor(prefix: string, failures: readonly { key: string; reason: string }[], deleted: number) {
    const first = failures[0];
    super(`could not delete ${failures.length} object(s) under ${prefix} (deleted ${deleted}), e.g. ${first?.key}: ${first?.reason}`);
    this.name = 'BlobDeleteError';
    this.prefix = prefix;
    this.failures = failures.slice(0, 20);
    this.deleted = deleted;
  }
}

export class InvalidBlobKeyError extends Error {
  constructor(key: string, why: string) {
    super(`invalid blob key ${JSON.stringify(key)}: ${why}`);
    this.name = 'InvalidBlobKeyError';
  }
}

const KEY_CHARS = /^[A-Za-z0-9._/-]+$/;
const MAX_KEY_LENGTH = 1024; // S3's own limit, in bytes (keys are ASCII here)

/**
 * Keys become file paths in the local store, so anything that could escape the root or alias
 * another key (`..`, `.`, empty segments, leading `/`) is refused in both implementations alike.
 */
export function assertValidBlobKey(key: string): void {
  if (typeof key === 'string' && key.endsWith('/')) throw new InvalidBlobKeyError(key, 'must not end with "/"');
  checkPathLike(key, 'key');
}

/** Prefixes follow the key rules but may end with "/"; an empty prefix (everything) is refused. */
export function assertValidBlobPrefix(prefix: string): void {
  checkPathLike(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix, 'prefix');
}

function checkPathLike(value: string, what: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidBlobKeyError(value, `${what} must be a non-empty string`);
  }
  if (value.length > MAX_KEY_LENGTH) {
    throw new InvalidBlobKeyError(value, `${what} is longer than ${MAX_KEY_LENGTH} characters`);
  }
  if (!KEY_CHARS.test(value)) {
    throw new InvalidBlobKeyError(value, `${what} may only contain A-Z a-z 0-9 . _ / -`);
  }
  if (value.startsWith('/')) throw new InvalidBlobKeyError(value, `${what} must not start with "/"`);
  if (value.includes('..')) throw new InvalidBlobKeyError(value, `${what} must not contain ".."`);
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') {
      throw new InvalidBlobKeyError(value, `${what} has an empty or "." path segment`);
    }
  }
}
