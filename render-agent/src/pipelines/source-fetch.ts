import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OutputTarget } from '@cutroom/proto';
import type { FailureDetail } from '@cutroom/shared/failure-details';
import { SNIFF_BYTES, sniffMedia } from '@cutroom/shared/media-sniff';
import { guardedRequest, RefusedUrlError } from '@cutroom/shared/net/guarded-request';
import type { Clock } from '../clock.ts';
import { inputFailure } from '../errors.ts';
import { uploadFile } from './http-transfer.ts';

/**
 * Media by URL (a job created with `source_url`): the agent fetches the caller's URL itself, with
 * the guards of shared/src/net/guarded-request.ts (public addresses only, resolved once and pinned,
 * redirects re-checked), a size limit (refused from Content-Length before reading, and counted while
 * streaming), one deadline for the whole transfer, and the first bytes checked to be audio or video.
 * The file is then stored as the job's source (the presigned PUT the claim gave), so later cuts of
 * the job read it from our storage like an upload, and the pipeline goes on from the local copy.
 * Every refusal is the caller's input failing (`source_url_failed`, with a typed detail): the job
 * fails and is refunded.
 */
export interface RemoteSource {
  url: string;
  max_bytes: number;
  timeout_ms: number;
  allow_http: boolean;
  /** Where the fetched file is stored as the job's source. */
  put: OutputTarget;
}

/** The agent's own settings for fetching (not the caller's): the test-only loopback allowance. */
export interface FetchSettings {
  /** Exact addresses allowed although not public (SOURCE_URL_TEST_ALLOW_ADDRESSES; tests only). */
  allowAddresses?: readonly string[];
  resolve?: (host: string) => Promise<readonly { address: string; family: number }[]>;
}

const fail = (params: Extract<FailureDetail, { code: 'source_url' }>['params'], cause?: unknown) =>
  inputFailure({ code: 'source_url', params }, { ...(cause !== undefined && { cause, tool: (cause as Error).message }) });

const REFUSAL_REASONS = {
  address: 'refused_address',
  scheme: 'refused_scheme',
  url: 'refused_url',
  dns: 'unresolvable',
  redirect: 'too_many_redirects',
} as const;

/**
 * Fetches `src.url` into `dest`, checks it is media, stores it at `src.put`, and resolves with its
 * size. `onBytes` is told the bytes received so far and the announced total (null when unknown).
 */
export async function fetchRemoteSource(
  src: RemoteSource,
  dest: string,
  signal: AbortSignal,
  clock: Clock,
  settings: FetchSettings = {},
  onBytes?: (received: number, total: number | null) => void,
): Promise<number> {
  const deadline = AbortSignal.timeout(src.timeout_ms);
  const both = AbortSignal.any([signal, deadline]);
  const failed = (err: unknown): never => {
    signal.throwIfAborted();
    if (err instanceof RefusedUrlError) throw fail({ reason: REFUSAL_REASONS[err.reason], ...(err.range && { range: err.range }) }, err);
    if (deadline.aborted) throw fail({ reason: 'timed_out' }, err);
    if (err instanceof TooLarge) throw fail({ reason: 'too_large', max_bytes: src.max_bytes }, err);
    throw fail({ reason: 'unreachable' }, err);
  };

  let received = 0;
  try {
    const res = await guardedRequest(src.url, {
      timeoutMs: src.timeout_ms,
      allowHttp: src.allow_http,
      signal: both,
      headers: { accept: 'audio/*, video/*;q=0.9, */*;q=0.1', 'user-agent': 'cutroom-render-agent (media by URL)' },
      ...(settings.allowAddresses && { allowAddresses: settings.allowAddresses }),
      ...(settings.resolve && { resolve: settings.resolve }),
    });
    if (res.status < 200 || res.status > 299) {
      res.body.destroy();
      throw fail({ reason: 'http_status', http_status: res.status });
    }
    const announced = Number(res.headers['content-length']);
    const total = Number.isFinite(announced) && announced >= 0 ? announced : null;
    if (total !== null && total > src.max_bytes) {
      res.body.destroy();
      throw fail({ reason: 'too_large', max_bytes: src.max_bytes });
    }
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > src.max_bytes) return done(new TooLarge());
        onBytes?.(received, total);
        done(null, chunk);
      },
    });
    await pipeline(res.body, count, fs.createWriteStream(dest), { signal: both });
  } catch (err) {
    if ((err as { name?: string }).name === 'PipelineError') throw err;
    failed(err);
  }

  const head = Buffer.alloc(SNIFF_BYTES);
  const fd = await fs.promises.open(dest, 'r');
  const { bytesRead } = await fd.read(head, 0, SNIFF_BYTES, 0).finally(() => fd.close());
  const sniffed = await sniffMedia(head.subarray(0, bytesRead));
  if (!sniffed.isMedia) throw fail({ reason: 'not_media', looks_like: sniffed.kind });
  await uploadFile('source', src.put, dest, signal, clock);
  return received;
}

class TooLarge extends Error {
  override readonly name = 'TooLarge';
}
