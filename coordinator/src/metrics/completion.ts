import { asc, eq } from 'drizzle-orm';
import type { AttemptStats, CompleteRequest } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { jobEvents } from '../db/schema.ts';
import { type CoordinatorMetrics, labelValue, metricsOf } from './registry.ts';
import { stageSeconds } from './stage-durations.ts';

/**
 * Called once per job by agents/attempts.ts `completeAttempt`, after the completion committed (a
 * retried complete returns before it): the attempt's own stats (Whisper speed, encode speed) and
 * the job's time in each stage, read from its job_events. Never throws: a metric must not turn a
 * recorded completion into an error the agent would retry.
 */
export async function recordCompletionMetrics(ctx: Ctx, job: { id: string; jobType: string }, r: CompleteRequest): Promise<void> {
  try {
    const m = metricsOf(ctx);
    observeAttemptStats(m, job.jobType, r.stats);
    const events = await ctx.db
      .select({ toStatus: jobEvents.toStatus, reason: jobEvents.reason, createdAt: jobEvents.createdAt })
      .from(jobEvents)
      .where(eq(jobEvents.jobId, job.id))
      .orderBy(asc(jobEvents.id));
    for (const [stage, seconds] of stageSeconds(events)) m.stageDuration.observe({ job_type: job.jobType, stage }, seconds);
  } catch (err) {
    ctx.logger.warn({ err, job_id: job.id, attempt_id: r.attempt_id, agent_id: r.agent_id }, 'could not record the completion metrics');
  }
}

/** faster-whisper's model names: an agent's `model` label is one of them or `other`, so no agent can grow the series without bound. */
const WHISPER_MODELS = new Set([
  'tiny.en',
  'tiny',
  'base.en',
  'base',
  'small.en',
  'small',
  'medium.en',
  'medium',
  'large-v1',
  'large-v2',
  'large-v3',
  'large',
  'large-v3-turbo',
  'turbo',
  'distil-small.en',
  'distil-medium.en',
  'distil-large-v2',
  'distil-large-v3',
  'distil-large-v3.5',
]);
const DEVICES = new Set(['cpu', 'cuda']);
const bounded = (v: string, known: ReadonlySet<string>): string => (known.has(v) ? labelValue(v) : 'other');

/** The agent's measurements; a ratio needs a positive wall time (a manual clock in tests reads 0 s). */
export function observeAttemptStats(m: CoordinatorMetrics, jobType: string, stats: AttemptStats | undefined): void {
  const t = stats?.transcription;
  if (t && t.wall_seconds > 0 && t.media_seconds > 0) {
    const labels = { model: bounded(t.model, WHISPER_MODELS), device: bounded(t.device, DEVICES) };
    m.transcriptionRatio.observe(labels, t.media_seconds / t.wall_seconds);
    m.transcriptionMediaSeconds.inc(labels, t.media_seconds);
    m.transcriptionWallSeconds.inc(labels, t.wall_seconds);
  }
  const e = stats?.encode;
  if (e && e.wall_seconds > 0 && e.frames > 0) {
    const labels = { job_type: jobType, encoder: e.encoder };
    m.encodeFps.observe(labels, e.frames / e.wall_seconds);
    m.encodeFrames.inc(labels, e.frames);
    m.encodeWallSeconds.inc(labels, e.wall_seconds);
  }
}
