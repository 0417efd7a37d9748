import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type { OutputTarget } from '@cutroom/proto';
import type { Clock } from '../clock.ts';
import { PipelineError } from '../errors.ts';
import { backoffDelayMs } from '../retry.ts';

/** Presigned URLs carry credentials in the query string: never log or report one whole. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

const TRIES = 3;
const isTransientStatus = (s: number) => s >= 500 || s === 429;

/** Retries network errors and 5xx a few times; the storage behind a presigned URL is ours, so blips are likely. */
async function withTransferRetry<T>(signal: AbortSignal, clock: Clock, run: () => Promise<T>, isRetryable: (err: unknown) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      signal.throwIfAborted();
      if (attempt + 1 >= TRIES || !isRetryable(err)) throw err;
      await clock.sleep(backoffDelayMs(attempt), signal);
    }
  }
}

class HttpStatusError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
const retryable = (err: unknown) => !(err instanceof HttpStatusError) || isTransientStatus(err.status);

/**
 * Streams a presigned GET to `dest` (no whole-file buffering: sources can be gigabytes).
 * Returns the bytes written; a short body when the size is known counts as unavailable.
 */
export async function downloadSource(url: string, dest: string, expectedSize: number | null, signal: AbortSignal, clock: Clock): Promise<number> {
  try {
    await withTransferRetry(
      signal,
      clock,
      async () => {
        const res = await fetch(url, { signal });
        if (!res.ok || !res.body) throw new HttpStatusError(res.status, `HTTP ${res.status}`);
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), fs.createWriteStream(dest), { signal });
      },
      retryable,
    );
  } catch (err) {
    signal.throwIfAborted();
    throw new PipelineError('source_unavailable', `the uploaded source could not be fetched from ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
  }
  const { size } = await fs.promises.stat(dest);
  if (expectedSize !== null && size !== expectedSize) {
    throw new PipelineError('source_unavailable', `the source download was ${size} bytes, expected ${expectedSize}`);
  }
  return size;
}

/** PUTs one output to its presigned URL with the content type it was signed for. */
export async function uploadOutput(name: string, target: OutputTarget, body: Buffer, signal: AbortSignal, clock: Clock): Promise<void> {
  try {
    await withTransferRetry(
      signal,
      clock,
      async () => {
        const res = await fetch(target.put_url, { method: 'PUT', body, headers: { 'content-type': target.content_type }, signal });
        if (!res.ok) throw new HttpStatusError(res.status, `HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
        await res.body?.cancel();
      },
      retryable,
    );
  } catch (err) {
    signal.throwIfAborted();
    throw new PipelineError('output_upload_failed', `could not upload ${name} to ${redactUrl(target.put_url)}: ${(err as Error).message}`, { cause: err });
  }
}
