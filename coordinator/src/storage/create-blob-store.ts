// Picks the storage backend from typed config; config.ts (the only reader of process.env) builds
// this object, so tests can construct stores without touching the environment.
import { join } from 'node:path';
import { LocalBlobStore } from './local-blob-store.ts';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.ts';

export interface LocalBlobStoreConfig {
  /** the coordinator's data folder; blobs live in `<dataDir>/blobs` */
  dataDir: string;
  /** base URL clients reach the coordinator at; presigned URLs point at `<publicBaseUrl>/blobs/…` */
  publicBaseUrl: string;
  /** HMAC key for presigned URLs, at least 16 characters */
  signingSecret: string;
  /** largest accepted upload, bytes */
  maxUploadBytes: number;
  /** @default Date.now */
  clock?: () => number;
}

export interface BlobStoreConfig {
  /** When set, blobs live in S3 and `local` is ignored. @default unset (local disk) */
  s3?: S3BlobStoreOptions | null;
  /** Required when `s3` is unset. */
  local?: LocalBlobStoreConfig | null;
}

/** Returns the concrete class so callers can narrow on `kind` (e.g. to mount the local routes). */
export function createBlobStore(cfg: BlobStoreConfig): S3BlobStore | LocalBlobStore {
  if (cfg.s3) return new S3BlobStore(cfg.s3);
  if (!cfg.local) {
    throw new Error('blob storage is not configured: give either S3 settings or a local data folder');
  }
  const { dataDir, ...rest } = cfg.local;
  return new LocalBlobStore({ root: join(dataDir, 'blobs'), ...rest });
}
