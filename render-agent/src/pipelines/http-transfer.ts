import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type { OutputTarget } from '@cutroom/proto';
import type { Clock } from '../clock.ts';
import { PipelineError } from '../errors.ts';
import { backoffDelayMs } from '../retry.ts';
import type { OutputSource } from './output-writes.ts';

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
  await putWithRetry(name, target, signal, clock, () => ({ body, bytes: body.byteLength }));
}

/**
 * PUTs the file at `file` to its presigned URL, streamed from disk (a clip can be gigabytes;
 * it is never held in memory whole), and resolves with the bytes sent. The length goes in an
 * explicit `content-length`: S3 presigned PUTs refuse a chunked body, and the coordinator's
 * local blob route checks it against its size limit before reading. Every try reopens the file,
 * so a retry sends the whole body again.
 */
export async function uploadFile(name: string, target: OutputTarget, file: string, signal: AbortSignal, clock: Clock): Promise<number> {
  // Outside the retries: a missing output is this agent's bug, not a transfer blip.
  const { size } = await fs.promises.stat(file);
  await putWithRetry(name, target, signal, clock, () => {
    const stream = fs.createReadStream(file);
    return { body: Readable.toWeb(stream) as ReadableStream<Uint8Array>, bytes: size, close: () => stream.destroy() };
  });
  return size;
}

/**
 * What one PUT sends: a fresh body per try (a stream is spent by a failed one), and how to let
 * go of it (a try the server answered before reading the whole body leaves the file open).
 */
type PutBody = () => { body: Buffer | ReadableStream<Uint8Array>; bytes: number; close?: () => void };

async function putWithRetry(name: string, target: OutputTarget, signal: AbortSignal, clock: Clock, open: PutBody): Promise<void> {
  try {
    await withTransferRetry(
      signal,
      clock,
      async () => {
        const { body, bytes, close } = open();
        try {
          const headers = { 'content-type': target.content_type, 'content-length': String(bytes) };
          // `duplex: 'half'` is what fetch requires of a stream body (the request is sent before the
          // response is read). `redirect: 'error'`: to replay a stream on a 307/308, undici's fetch
          // keeps every chunk it sent (the whole clip in memory, nodejs/undici#4058), and a presigned
          // PUT has nowhere to be redirected to anyway (its signature is for this host).
          const res = await fetch(target.put_url, { method: 'PUT', body, headers, duplex: 'half', redirect: 'error', signal });
          if (!res.ok) throw new HttpStatusError(res.status, `HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
          await res.body?.cancel();
        } finally {
          close?.();
        }
      },
      retryable,
    );
  } catch (err) {
    signal.throwIfAborted();
    throw new PipelineError('output_upload_failed', `could not upload ${name} to ${redactUrl(target.put_url)}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Uploads every output the assignment names, in turn, each from its source (asked for only when
 * its turn comes), and resolves with the names and byte counts that `complete` reports.
 */
export async function uploadOutputs<N extends string>(
  targets: Readonly<Record<string, OutputTarget>>,
  sources: Readonly<Record<N, () => OutputSource>>,
  signal: AbortSignal,
  clock: Clock,
): Promise<{ name: string; bytes: number }[]> {
  const uploaded: { name: string; bytes: number }[] = [];
  for (const [name, target] of Object.entries(targets)) {
    // Pipelines refuse unknown outputs before any work; this only keeps a missed one from passing silently.
    if (!Object.hasOwn(sources, name)) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${name}`);
    const source = sources[name as N]();
    if ('file' in source) {
      uploaded.push({ name, bytes: await uploadFile(name, target, source.file, signal, clock) });
    } else {
      await uploadOutput(name, target, source.body, signal, clock);
      uploaded.push({ name, bytes: source.body.byteLength });
    }
  }
  return uploaded;
}
