import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { vi } from 'vitest';
import type { Fence } from '@cutroom/proto';
import { systemClock } from '../clock.ts';
import { loadAgentConfig } from '../config.ts';
import type { PipelineContext } from '../pipelines/pipeline.ts';

/** What one PUT delivered: the headers storage sees and the bytes. */
export interface ReceivedUpload {
  type: string | undefined;
  /** The `content-length` header as sent (undefined for a chunked body). */
  length: string | undefined;
  body: Buffer;
}

export interface BlobServer {
  /** `http://127.0.0.1:<port>`: presigned URLs are `${base}/<path>`. */
  base: string;
  /** Local files served to GETs by URL path (the query, a presigned URL's signature, is ignored). */
  files: Record<string, string>;
  /** PUTs received, by URL path with its query. */
  uploads: Map<string, ReceivedUpload>;
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for the blob store behind presigned URLs: serves `files` to
 * GETs and keeps what PUTs send. Pipeline tests run whole attempts against it on real ffmpeg.
 */
export async function startBlobServer(): Promise<BlobServer> {
  const files: Record<string, string> = {};
  const uploads = new Map<string, ReceivedUpload>();
  const server = http.createServer((req, res) => {
    const file = req.method === 'GET' && req.url ? files[req.url.split('?')[0]!] : undefined;
    if (file) return void fs.createReadStream(file).pipe(res);
    if (req.method !== 'PUT') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      uploads.set(req.url ?? '', { type: req.headers['content-type'], length: req.headers['content-length'], body: Buffer.concat(chunks) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    uploads,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A pipeline's context on this host with ffmpeg/libx264 and no GPU: the coordinator and the
 * progress publisher are spies, work folders go under `workDir`, time is the system clock.
 */
export function createPipelineContext(workDir: string, fence: Fence) {
  const client = {
    stage: vi.fn(),
    heartbeat: vi.fn().mockResolvedValue(undefined),
    complete: vi.fn().mockResolvedValue(undefined),
    fail: vi.fn().mockResolvedValue(undefined),
  };
  const progress = { report: vi.fn(), flush: vi.fn(), close: vi.fn() };
  const ctx: PipelineContext = {
    config: { ...loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:1', AGENT_TOKEN: 't', NATS_URL: 'nats://127.0.0.1:1', AGENT_ID: 'a1' }), workDir },
    whisper: { device: 'cpu', computeType: 'int8' },
    host: {
      ffmpeg: { version: '5.1', encoders: ['aac', 'libx264'] },
      nvenc: false,
      cuda: { available: false, devices: [] },
      whisperModels: { isRunnable: false, models: [] },
      freeDiskBytes: 1e10,
    },
    client,
    fence,
    progress,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
  };
  return { ctx, client, progress };
}

/**
 * The fields every cut assignment shares: the fence, kind and lease, the source at `source` on
 * the blob server and a PUT URL there per output (`/out/<name>`, typed by `types`, `text/plain`
 * for a name it lacks). The test adds `job_type` and `params`.
 */
export function cutAssignmentFields(o: { base: string; fence: Fence; source: string; outputs: readonly string[]; types: Record<string, string> }) {
  return {
    ...o.fence,
    kind: 'cut' as const,
    lease_ms: 60_000,
    outputs: Object.fromEntries(o.outputs.map((n) => [n, { put_url: `${o.base}/out/${n}`, content_type: o.types[n] ?? 'text/plain', key: `k/${n}` }])),
    source: { get_url: `${o.base}${o.source}`, content_type: 'video/mp4', size: null },
  };
}
