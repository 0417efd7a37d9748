import type { WorkKind } from '@cutroom/proto';
import type { JobType } from '@cutroom/shared/job-types';

/**
 * How long a job of each type should take and when a queued one should start: the pure part of
 * queue-standing.ts (which reads the rows). Agents pull work of a kind one job at a time per
 * agent (render-agent slots by work kind), in the order jobs were queued, so a queued job starts
 * when the jobs running and queued ahead of it on that kind have gone through the live agents
 * that announce the kind. Each job is reckoned at its type's typical attempt time: the median of
 * recent successful attempts where there are enough, else the default below. Queued uploads have
 * no measured duration yet (the agent probes it), so the queue reckons by job, not by minute;
 * the estimate at creation gives a rate per minute of media, which the caller can multiply.
 */

/** Successful attempts of a type needed before their median replaces the default. */
export const MIN_SAMPLES = 3;

/**
 * Typical attempt seconds of a ten-minute recording (or a one-minute clip) on the embedded
 * default (2 CPU cores, tiny.en, the local text model; docs/benchmarks.md): used until a type has
 * MIN_SAMPLES successful attempts of its own.
 */
export const DEFAULT_ATTEMPT_SECONDS: Readonly<Record<string, number>> = {
  transcribe: 35,
  summarize: 110,
  find_clips: 60,
  extract_clip: 15,
  extract_vertical_clip: 45,
  edit_from_transcript: 30,
};

/** Processing seconds per minute of media on the embedded default, until the type has history (same figures). */
export const DEFAULT_SECONDS_PER_MEDIA_MINUTE: Readonly<Record<string, number>> = {
  transcribe: 3.5,
  summarize: 11,
  find_clips: 6,
  extract_clip: 15,
  extract_vertical_clip: 45,
  edit_from_transcript: 30,
};

/** What the history says of one type (queue-standing.ts reads it from job_attempts). */
export interface TypeHistory {
  /** Seconds of recent successful attempts. */
  attemptSeconds: readonly number[];
  /** Sum of those attempts' seconds and of their jobs' media minutes, where the duration is known. */
  measuredSeconds: number;
  mediaMinutes: number;
}

export interface TypeFigures {
  attemptSeconds: number;
  secondsPerMediaMinute: number;
  basis: 'recent jobs' | 'defaults';
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A type's figures: its own history when there are MIN_SAMPLES attempts, else the defaults. */
export function figuresOf(jobType: JobType | string, h: TypeHistory | undefined): TypeFigures {
  const fallback = { attemptSeconds: DEFAULT_ATTEMPT_SECONDS[jobType] ?? 60, secondsPerMediaMinute: DEFAULT_SECONDS_PER_MEDIA_MINUTE[jobType] ?? 10 };
  if (!h || h.attemptSeconds.length < MIN_SAMPLES) return { ...fallback, basis: 'defaults' };
  return {
    attemptSeconds: median(h.attemptSeconds),
    secondsPerMediaMinute: h.mediaMinutes > 0 ? h.measuredSeconds / h.mediaMinutes : fallback.secondsPerMediaMinute,
    basis: 'recent jobs',
  };
}

/** One work kind's line at a moment: what runs, what waits (in queue order), and who can take it. */
export interface KindLine {
  kind: WorkKind;
  running: readonly { jobType: string; startedAt: Date }[];
  /** Job types of the queued jobs ahead of the one asked about, oldest first. */
  ahead: readonly string[];
  /** Live active agents that announce the kind (one job of a kind at a time each). */
  slots: number;
}

/**
 * When the next job in `line` should start, or null when no live agent takes its kind. A running
 * attempt older than its type's typical time is taken to end within a tenth of it more.
 */
export function estimateStart(line: KindLine, now: Date, seconds: (jobType: string) => number): Date | null {
  if (line.slots <= 0) return null;
  const free: number[] = Array.from({ length: line.slots }, () => 0);
  const take = (s: number) => {
    free.sort((a, b) => a - b);
    free[0] = free[0]! + s;
  };
  for (const r of line.running) {
    const typical = seconds(r.jobType);
    const elapsed = Math.max(0, (now.getTime() - r.startedAt.getTime()) / 1000);
    take(Math.max(typical - elapsed, typical / 10));
  }
  for (const t of line.ahead) take(seconds(t));
  return new Date(now.getTime() + Math.round(Math.min(...free) * 1000));
}
