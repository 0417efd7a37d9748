import { Counter, Histogram, Registry } from 'prom-client';
import type { Ctx } from '../context.ts';

/**
 * The in-process half of GET /metrics: what this replica itself observes (HTTP requests it
 * answered, completions it recorded), in its own prom-client Registry. Each observation happens in
 * exactly one replica, so Prometheus sums these across replicas. The half derived from Postgres at
 * scrape time (jobs, queues, agents, payments) is added by scrape.ts.
 */
export interface CoordinatorMetrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_class'>;
  readonly stageDuration: Histogram<'job_type' | 'stage'>;
  readonly transcriptionRatio: Histogram<'model' | 'device'>;
  readonly transcriptionMediaSeconds: Counter<'model' | 'device'>;
  readonly transcriptionWallSeconds: Counter<'model' | 'device'>;
  readonly encodeFps: Histogram<'job_type' | 'encoder'>;
  readonly encodeFrames: Counter<'job_type' | 'encoder'>;
  readonly encodeWallSeconds: Counter<'job_type' | 'encoder'>;
}

/** Every metric name starts with this; the default process metrics get it too. */
export const METRIC_PREFIX = 'cutroom_';

/** HTTP answers: most within milliseconds, uploads to local disk and SSE streams much longer. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
/** Time in a stage: from a queue wait of a second to hours of transcription. */
const STAGE_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400];
/** Media seconds per wall second: a slow CPU model near 0.5, tiny.en on a GPU past 100. */
const RATIO_BUCKETS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Frames encoded per wall second: libx264 slow presets in single digits, NVENC in hundreds. */
const FPS_BUCKETS = [2, 5, 10, 20, 30, 60, 120, 240, 480, 960];

/**
 * One CoordinatorMetrics per service context, made on first use: the HTTP hook, the completion
 * hook and the /metrics route of one coordinator all reach it through the Ctx they already have,
 * and two coordinators in one process (tests) keep theirs apart. No module-level registry.
 */
const byCtx = new WeakMap<Ctx, CoordinatorMetrics>();

export function metricsOf(ctx: Ctx): CoordinatorMetrics {
  let m = byCtx.get(ctx);
  if (!m) {
    m = createCoordinatorMetrics();
    byCtx.set(ctx, m);
  }
  return m;
}

export function createCoordinatorMetrics(): CoordinatorMetrics {
  const registry = new Registry();
  const registers = [registry];
  const name = (n: string) => `${METRIC_PREFIX}${n}`;
  return {
    registry,
    httpDuration: new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'HTTP requests this replica answered, by method, route pattern (unmatched: no route) and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: HTTP_BUCKETS,
      registers,
    }),
    stageDuration: new Histogram({
      name: name('job_stage_duration_seconds'),
      help: 'Time a completed job spent in each stage (queued: waiting for an agent; else the status an agent ran it in), from its job_events, observed once by the replica that recorded the completion.',
      labelNames: ['job_type', 'stage'],
      buckets: STAGE_BUCKETS,
      registers,
    }),
    transcriptionRatio: new Histogram({
      name: name('transcription_realtime_ratio'),
      help: 'Media seconds transcribed per wall-clock second of the Whisper child (2 = twice real time), per completed attempt, from the agent.',
      labelNames: ['model', 'device'],
      buckets: RATIO_BUCKETS,
      registers,
    }),
    transcriptionMediaSeconds: new Counter({
      name: name('transcription_media_seconds_total'),
      help: 'Media seconds transcribed by completed attempts.',
      labelNames: ['model', 'device'],
      registers,
    }),
    transcriptionWallSeconds: new Counter({
      name: name('transcription_wall_seconds_total'),
      help: 'Wall-clock seconds the Whisper child ran in completed attempts (model load included).',
      labelNames: ['model', 'device'],
      registers,
    }),
    encodeFps: new Histogram({
      name: name('encode_frames_per_second'),
      help: 'Video frames encoded per wall-clock second, per completed cut attempt, from the agent.',
      labelNames: ['job_type', 'encoder'],
      buckets: FPS_BUCKETS,
      registers,
    }),
    encodeFrames: new Counter({
      name: name('encode_frames_total'),
      help: 'Video frames encoded by completed cut attempts.',
      labelNames: ['job_type', 'encoder'],
      registers,
    }),
    encodeWallSeconds: new Counter({
      name: name('encode_wall_seconds_total'),
      help: 'Wall-clock seconds of the encoding ffmpeg runs of completed cut attempts.',
      labelNames: ['job_type', 'encoder'],
      registers,
    }),
  };
}

/**
 * A label value from something an agent or a row said: at most 64 characters of a safe set, so
 * a strange value can neither break the text format nor explode the series count.
 */
export function labelValue(v: string | null | undefined): string {
  if (!v) return 'unknown';
  const clean = v.replace(/[^A-Za-z0-9._:/+-]/g, '_').slice(0, 64);
  return clean || 'unknown';
}
