// BlobStore on S3 or any S3-compatible server (MinIO, R2, …). Agents and clients move media
// straight to and from the bucket through presigned URLs; the coordinator never proxies bytes.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobHead, BlobStore, PresignGetOptions, PresignPutOptions } from './blob-store.ts';
import { BlobDeleteError, BlobNotFoundError, assertValidBlobKey, assertValidBlobPrefix } from './blob-store.ts';
import { assertValidContentType, formatAttachmentDisposition } from './content-disposition.ts';
import { SignedUrlCache } from './signed-url-cache.ts';

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
  /** Objects up to this size are moved with one CopyObject (S3's limit is 5 GiB). @default 5 GiB */
  maxSingleCopyBytes?: number;
  /** Part size of a multipart copy, for larger objects (at least 5 MiB). @default 512 MiB */
  copyPartBytes?: number;
}

const MiB = 1024 * 1024;
/** Tries of a move whose source changes under it (a PUT between the HEAD and the copy). */
const MOVE_TRIES = 3;

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #presigner: S3Client;
  readonly #bucket: string;
  readonly #maxSingleCopy: number;
  readonly #copyPart: number;
  readonly #signedGets = new SignedUrlCache();

  constructor(opts: S3BlobStoreOptions) {
    this.#bucket = opts.bucket;
    this.#maxSingleCopy = opts.maxSingleCopyBytes ?? 5 * 1024 * MiB;
    this.#copyPart = Math.max(5 * MiB, opts.copyPartBytes ?? 512 * MiB);
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
    const disposition = opts.downloadFilename === undefined ? undefined : formatAttachmentDisposition(opts.downloadFilename);
    const id = JSON.stringify([key, opts.expiresInSeconds, opts.contentType ?? null, disposition ?? null]);
    return this.#signedGets.get(id, opts.expiresInSeconds, () =>
      getSignedUrl(
        this.#presigner,
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, ResponseContentType: opts.contentType, ResponseContentDisposition: disposition }),
        { expiresIn: opts.expiresInSeconds },
      ),
    );
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

  async getBytes(key: string, firstBytes?: number): Promise<Buffer> {
    assertValidBlobKey(key);
    try {
      const range = firstBytes === undefined ? {} : { Range: `bytes=0-${Math.max(0, firstBytes - 1)}` };
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, ...range }));
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
    const failures: { key: string; reason: string }[] = [];
    let token: string | undefined;
    // Each listing page holds at most 1000 keys, which is also DeleteObjects' limit per call. A key
    // S3 refuses to delete does not stop the rest: every page is tried, then the refusals reported.
    do {
      const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token }));
      const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (objects.length > 0) {
        const out = await this.#client.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: objects, Quiet: true } }));
        const refused = (out.Errors ?? []).map((e) => ({ key: e.Key ?? '?', reason: `${e.Code ?? 'error'}: ${e.Message ?? ''}` }));
        failures.push(...refused);
        deleted += objects.length - refused.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    if (failures.length) throw new BlobDeleteError(prefix, failures, deleted);
    return deleted;
  }

  async move(from: string, to: string): Promise<BlobHead | null> {
    assertValidBlobKey(from);
    assertValidBlobKey(to);
    for (let attempt = 1; ; attempt++) {
      let source: { size: number; etag: string };
      try {
        const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: from }));
        source = { size: out.ContentLength ?? 0, etag: out.ETag ?? '' };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
      try {
        // If-Match pins the copy to the object just measured: a PUT racing the move fails it
        // (412) instead of slipping an object nobody looked at into `to`.
        if (source.size <= this.#maxSingleCopy) {
          await this.#client.send(
            new CopyObjectCommand({
              Bucket: this.#bucket,
              Key: to,
              CopySource: this.#copySource(from),
              CopySourceIfMatch: source.etag,
              MetadataDirective: 'COPY',
            }),
          );
        } else {
          await this.#multipartCopy(from, to, source);
        }
      } catch (err) {
        if (isNotFound(err)) return null;
        if (isPreconditionFailed(err) && attempt < MOVE_TRIES) continue;
        throw err;
      }
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: from }));
      return this.head(to);
    }
  }

  #copySource(key: string): string {
    // Keys are restricted to [A-Za-z0-9._/-] (assertValidBlobKey), so nothing needs escaping.
    return `${this.#bucket}/${key}`;
  }

  /** CopyObject stops at 5 GiB; larger objects are copied part by part, still inside S3. */
  async #multipartCopy(from: string, to: string, source: { size: number; etag: string }): Promise<void> {
    const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: from }));
    const created = await this.#client.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: to, ContentType: head.ContentType }));
    const uploadId = created.UploadId!;
    try {
      const parts: { PartNumber: number; ETag: string | undefined }[] = [];
      for (let start = 0, n = 1; start < source.size; start += this.#copyPart, n++) {
        const end = Math.min(start + this.#copyPart, source.size) - 1;
        const out = await this.#client.send(
          new UploadPartCopyCommand({
            Bucket: this.#bucket,
            Key: to,
            UploadId: uploadId,
            PartNumber: n,
            CopySource: this.#copySource(from),
            CopySourceIfMatch: source.etag,
            CopySourceRange: `bytes=${start}-${end}`,
          }),
        );
        parts.push({ PartNumber: n, ETag: out.CopyPartResult?.ETag });
      }
      await this.#client.send(new CompleteMultipartUploadCommand({ Bucket: this.#bucket, Key: to, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: to, UploadId: uploadId })).catch(() => undefined);
      throw err;
    }
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

function isPreconditionFailed(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return errorName(err) === 'PreconditionFailed' || status === 412;
}
