import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, EXIT } from './errors.ts';

export interface PutOptions {
  size: number;
  contentType: string;
  /** Bytes per second at most. */
  limitRate?: number | undefined;
  onProgress(bytes: number): void;
  signal?: AbortSignal;
}

/**
 * Counts the bytes passing through (and, with a rate, holds each chunk back until the average
 * since the start is at most that rate): what the upload bar shows is what has left this process.
 */
export class CountingThrottle extends Transform {
  bytes = 0;
  private readonly rate: number | undefined;
  private readonly started = Date.now();
  private readonly onBytes: (bytes: number) => void;
  constructor(onBytes: (bytes: number) => void, rate?: number) {
    super();
    this.onBytes = onBytes;
    this.rate = rate;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.onBytes(this.bytes);
    this.push(chunk);
    const wait = this.rate ? this.started + (this.bytes / this.rate) * 1000 - Date.now() : 0;
    if (wait > 0) setTimeout(done, wait);
    else done();
  }
}

/**
 * PUTs the file to a presigned URL as one streamed request with a Content-Length (S3 presigned
 * PUTs take no chunked bodies), reporting bytes as they are handed to the socket. The whole file
 * is sent each time: a presigned PUT has no byte ranges to resume from.
 */
export async function putFile(url: string, file: string, opts: PutOptions): Promise<void> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // Small reads keep the bar moving; with a low rate limit, smaller still.
  const highWaterMark = opts.limitRate ? Math.max(4096, Math.min(64 * 1024, Math.floor(opts.limitRate / 8))) : 64 * 1024;
  const req = request(target, {
    method: 'PUT',
    headers: { 'content-type': opts.contentType, 'content-length': String(opts.size) },
    signal: opts.signal,
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  try {
    await pipeline(createReadStream(file, { highWaterMark }), new CountingThrottle(opts.onProgress, opts.limitRate), req);
    const res = await response;
    const body = await readAll(res);
    if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) throw refusal(res.statusCode, body);
  } catch (err) {
    if (err instanceof CliError || (err as Error).name === 'AbortError') throw err;
    // A server that refuses early (expired URL, too large) answers before the body is sent, and the write then fails: report its answer.
    const early = await Promise.race([response.catch(() => null), new Promise<null>((r) => setTimeout(() => r(null), 500))]);
    if (early && (early.statusCode ?? 0) >= 300) throw refusal(early.statusCode, await readAll(early).catch(() => ''));
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'EACCES') throw new CliError(EXIT.usage, `cannot read ${file}: ${e.code}`);
    throw new CliError(EXIT.service, `the upload failed: ${e.code ?? e.message}`, 'run the same command again to retry (the job is kept)');
  }
}

/** The store's refusal: S3 answers XML (<Message>), the coordinator's disk store `{error}`. */
function refusal(status: number | undefined, body: string): CliError {
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1] ?? safeJsonError(body) ?? body.slice(0, 300);
  return new CliError(EXIT.service, `the upload was refused (HTTP ${status}): ${message}`, 'run the same command again to retry with a fresh upload URL');
}

function safeJsonError(text: string): string | undefined {
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    return typeof e === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

async function readAll(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
