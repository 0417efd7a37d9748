import { and, inArray, isNull, sql } from 'drizzle-orm';
import { WORK_KINDS, type WorkKind } from '@cutroom/proto';
import { ACTIVE_STATUSES, type JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobEvents, jobs } from '../db/schema.ts';
import { JOB_TYPE_DEFINITIONS } from '../job-types/agent-types.ts';

/** The queue of one work kind at one moment. */
export interface WorkKindQueue {
  /** Jobs waiting for an agent of this kind. */
  queued: number;
  /** When the longest-waiting of them entered the queue (its latest job event), or null when none waits. */
  oldestQueuedAt: Date | null;
  /** Seconds the longest-waiting one has waited at `now`; 0 when none waits. */
  oldestAgeSeconds: number;
}

/** Every work kind's queue (kinds with nothing queued included, at 0). */
export type QueueStats = Record<WorkKind, WorkKindQueue>;

/** One row of the grouped query: what queueStatsOf folds into kinds. */
export interface QueuedByType {
  jobType: string;
  queued: number;
  /** Epoch milliseconds of the oldest queued job's latest event, or null (a job with no event). */
  oldestMs: number | null;
}

/**
 * What waits for an agent, per work kind. Queued is the claim's own definition
 * (agents/claim.ts): an active status with no current attempt, whatever the type's first stage,
 * for the job types agents run (JOB_TYPE_DEFINITIONS; bundles, agent products and coordinator-run
 * types never queue for an agent, as the sweeper's wake-up pass also skips them). Jobs out of
 * attempts count until the wake-up pass fails them. A job waits since its latest job event: the
 * transition that queued it (complete-upload, /process, a requeue); `updated_at` would not do,
 * since the wake-up pass moves it when it re-publishes. One grouped statement.
 */
export async function queueStats(ctx: Pick<Ctx, 'db' | 'clock'>): Promise<QueueStats> {
  const agentTypes = Object.keys(JOB_TYPE_DEFINITIONS) as JobType[];
  const lastEvent = sql`(select ${jobEvents.createdAt} from ${jobEvents} where ${jobEvents.jobId} = ${jobs.id} order by ${jobEvents.id} desc limit 1)`;
  const rows = await ctx.db
    .select({
      jobType: jobs.jobType,
      queued: sql<number>`count(*)::int`,
      oldestMs: sql<number | string | null>`(extract(epoch from min(${lastEvent})) * 1000)::float8`,
    })
    .from(jobs)
    .where(and(inArray(jobs.status, [...ACTIVE_STATUSES]), isNull(jobs.currentAttemptId), inArray(jobs.jobType, agentTypes)))
    .groupBy(jobs.jobType);
  return queueStatsOf(
    rows.map((r) => ({ jobType: r.jobType, queued: Number(r.queued), oldestMs: r.oldestMs === null ? null : Number(r.oldestMs) })),
    ctx.clock.now(),
  );
}

/** Folds per-type rows into per-kind queues at `now` (pure: the part unit tests pin down). */
export function queueStatsOf(rows: readonly QueuedByType[], now: Date): QueueStats {
  const out = Object.fromEntries(WORK_KINDS.map((k) => [k, { queued: 0, oldestQueuedAt: null, oldestAgeSeconds: 0 }])) as unknown as QueueStats;
  for (const r of rows) {
    const def = JOB_TYPE_DEFINITIONS[r.jobType as JobType];
    if (!def || r.queued <= 0) continue;
    const q = out[def.workKind];
    q.queued += r.queued;
    if (r.oldestMs !== null && (q.oldestQueuedAt === null || r.oldestMs < q.oldestQueuedAt.getTime())) q.oldestQueuedAt = new Date(r.oldestMs);
  }
  for (const q of Object.values(out)) {
    q.oldestAgeSeconds = q.oldestQueuedAt ? Math.max(0, (now.getTime() - q.oldestQueuedAt.getTime()) / 1000) : 0;
  }
  return out;
}
