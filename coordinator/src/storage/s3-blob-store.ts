// BlobStore on S3 or any S3-compatible server (MinIO, R2, …). Agents and clients move media
// straight to and from the bucket through presigned URLs; the coordinator never proxies bytes.
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobHead, BlobStore, PresignGetOptions, PresignPutOptions } from './blob-store.ts';
import { BlobNotFoundError, assertValidBlobKey, assertValidBlobPrefix } from './blob-store.ts';
import { assertValidContentType, formatAttachmentDisposition } from './content-disposition.ts';

export interface S3BlobStoreOptions {
  /** e.g. `http://127.0.0.1:9000`. @default AWS's regional endpoint */
  endpoint?: string;
  region: string;
  bucket: string;
  /** @default the SDK's credential chain (env, instance role, …) */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** true for MinIO and most non-AWS servers (bucket in the path, not the host name) */
  forcePathStyle: boolean;
  /** Host that presigned URLs are signed for, when clients reach S3 by another name than we do
   * (e.g. `http://minio:9000` inside compose vs `http://localhost:9000` outside). @default endpoint */
  publicEndpoint?: string;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #presigner: S3Client;
  readonly #bucket: string;

  constructor(opts: S3BlobStoreOptions) {
    this.#bucket = opts.bucket;
    this.#client = new S3Client(clientConfig(opts, opts.endpoint));
    // Signing binds the Host header, so URLs for other hosts need a client configured for them.
    this.#presigner = opts.publicEndpoint ? new S3Client(clientConfig(opts, opts.publicEndpoint)) : this.#client;
  }

  async ensureReady(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await this.#client.send(new CreateBucketCommand({ Bucket: this.#bucket }));
    } catch (err) {
      // Another coordinator created it between our HEAD and CREATE: that is success.
      if (errorName(err) !== 'BucketAlreadyOwnedByYou') throw err;
    }
  }

  async presignGet(key: string, opts: PresignGetOptions): Promise<string> {
    assertValidBlobKey(key);
    if (opts.contentType !== undefined) assertValidContentType(opts.contentType);
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ResponseContentType: opts.contentType,
      ResponseContentDisposition: opts.downloadFilename === undefined ? undefined : formatAttachmentDisposition(opts.downloadFilename),
    });
    return getSignedUrl(this.#presigner, command, { expiresIn: opts.expiresInSeconds });
  }

  async presignPut(key: string, opts: PresignPutOptions): Promise<string> {
    assertValidBlobKey(key);
    assertValidContentType(opts.contentType);
    const command = new PutObjectCommand({ Bucket: this.#bucket, Key: key, ContentType: opts.contentType });
    // Signing content-type makes S3 refuse an upload with another type, like the local store does.
    return getSignedUrl(this.#presigner, command, {
      expiresIn: opts.expiresInSeconds,
      signableHeaders: new Set(['content-type']),
    });
  }

  async head(key: string): Promise<BlobHead | null> {
    assertValidBlobKey(key);
    try {
      const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async getBytes(key: string): Promise<Buffer> {
    assertValidBlobKey(key);
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      if (!out.Body) throw new Error(`S3 returned no body for ${key}`);
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<void> {
    assertValidBlobKey(key);
    assertValidContentType(contentType);
    const cmd = new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: body, ContentType: contentType });
    await this.#client.send(cmd);
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidBlobPrefix(prefix);
    let deleted = 0;
    let token: string | undefined;
    // Each listing page holds at most 1000 keys, which is also DeleteObjects' limit per call.
    do {
      const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token }));
      const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (objects.length > 0) {
        const out = await this.#client.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: objects, Quiet: true } }));
        if (out.Errors && out.Errors.length > 0) {
          const first = out.Errors[0];
          throw new Error(`S3 refused to delete ${out.Errors.length} object(s) under ${prefix}, e.g. ${first?.Key}: ${first?.Message}`);
        }
        deleted += objects.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }
}

function clientConfig(opts: S3BlobStoreOptions, endpoint: string | undefined): S3ClientConfig {
  const hasKeys = opts.accessKeyId !== undefined && opts.secretAccessKey !== undefined;
  return {
    endpoint,
    region: opts.region,
    forcePathStyle: opts.forcePathStyle,
    credentials: hasKeys ? { accessKeyId: opts.accessKeyId!, secretAccessKey: opts.secretAccessKey! } : undefined,
    // The SDK's default adds CRC32 checksums that presigned PUTs from curl/fetch cannot supply
    // and that some non-AWS servers reject: only send them where the API requires one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

function errorName(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { name?: string }).name : undefined;
}

function isNotFound(err: unknown): boolean {
  const name = errorName(err);
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  // A missing bucket is a configuration error, not a missing blob: let it surface as such.
  if (name === 'NoSuchBucket') return false;
  return name === 'NotFound' || name === 'NoSuchKey' || status === 404;
}
