import type { Clock } from '../clock.ts';
import type { AgentConfig } from '../config.ts';
import { PipelineError } from '../errors.ts';

/** The stages that run a child process, each under its own wall-clock limit. */
export type LimitedStage = 'probe' | 'extract' | 'transcribe' | 'encode' | 'detect';

/** What a stage is called in the `stage_timeout` message (no paths, no arguments). */
const STAGE_NAMES: Record<LimitedStage, string> = {
  probe: 'probing the media (ffprobe)',
  extract: 'extracting the audio (ffmpeg)',
  transcribe: 'transcribing (the Whisper process)',
  encode: 'encoding the clip (ffmpeg)',
  detect: 'detecting subjects (frame sampling and the face detector)',
};

export type StageTimeouts = AgentConfig['stageTimeouts'];

/**
 * A stage's wall-clock limit: `floorMs + factor(stage) × mediaSeconds × 1000`, where the factor
 * is `extractFactor` for ffmpeg's audio extraction, `transcribeFactor` for the Whisper child,
 * `encodeFactor` for a cut's ffmpeg encode or loudness pass, `detectFactor` for subject detection, and
 * 0 for the probe (it runs before the duration is known, so it gets the floor alone).
 */
export function stageLimitMs(stage: LimitedStage, mediaSeconds: number, t: StageTimeouts): number {
  const factors: Record<LimitedStage, number> = {
    probe: 0,
    extract: t.extractFactor,
    transcribe: t.transcribeFactor,
    encode: t.encodeFactor,
    detect: t.detectFactor,
  };
  const factor = factors[stage];
  const seconds = Number.isFinite(mediaSeconds) && mediaSeconds > 0 ? mediaSeconds : 0;
  return Math.ceil(t.floorMs + factor * seconds * 1000);
}

export interface StageLimitOptions {
  stage: LimitedStage;
  limitMs: number;
  /** The attempt's signal: its abort (cancel, stale, shutdown) passes through as it is. */
  signal: AbortSignal;
  clock: Clock;
}

/**
 * Runs one stage under its limit. `run` gets a signal that aborts when the attempt's does or when
 * the limit passes, and must hand it to the child it starts (the executors kill the child's whole
 * process group on abort: SIGTERM, SIGKILL 2 s later). A stage stopped by its limit rejects with
 * `PipelineError('stage_timeout')` (ours, retryable): the attempt reports `fail` instead of
 * holding its lease for as long as the child hangs. The timer is on `clock`, so tests drive it.
 */
export async function runWithinLimit<T>(o: StageLimitOptions, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const limit = new AbortController();
  const timeout = new PipelineError(
    'stage_timeout',
    `${STAGE_NAMES[o.stage]} ran past its limit of ${formatSeconds(o.limitMs)} and was stopped; the stage limits are STAGE_TIMEOUT_FLOOR_MS plus a multiple of the media duration`,
  );
  const timer = o.clock.setTimeout(() => limit.abort(timeout), o.limitMs);
  try {
    return await run(AbortSignal.any([o.signal, limit.signal]));
  } catch (err) {
    // The attempt's own abort wins: it stops quietly, without a report.
    if (limit.signal.aborted && !o.signal.aborted) throw timeout;
    throw err;
  } finally {
    o.clock.clearTimeout(timer);
  }
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
