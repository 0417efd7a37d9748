import { and, inArray, isNotNull, sql } from 'drizzle-orm';
import { WORK_KINDS, type WorkKind } from '@cutroom/proto';
import { ACTIVE_STATUSES, type JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobs } from '../db/schema.ts';
import { JOB_TYPE_DEFINITIONS } from '../job-types/agent-types.ts';
import { queueStats } from './queue-stats.ts';

export interface KindQueueView {
  kind: WorkKind;
  queued: number;
  running: number;
  oldest_queued_at: string | null;
  oldest_wait_seconds: number;
  /** ROUTING_TAGS for the kind: an agent needs them all to take its jobs (a job type may add more). */
  required_tags: string[];
}

/** The console's queue: per work kind, what waits (and since when), what runs, and the tags it needs. */
export async function queueView(ctx: Ctx): Promise<KindQueueView[]> {
  const [stats, running] = await Promise.all([
    queueStats(ctx),
    ctx.db
      .select({ jobType: jobs.jobType, n: sql<number>`count(*)::int` })
      .from(jobs)
      .where(
        and(
          inArray(jobs.status, [...ACTIVE_STATUSES]),
          isNotNull(jobs.currentAttemptId),
          inArray(jobs.jobType, Object.keys(JOB_TYPE_DEFINITIONS) as JobType[]),
        ),
      )
      .groupBy(jobs.jobType),
  ]);
  return WORK_KINDS.map((kind) => ({
    kind,
    queued: stats[kind].queued,
    running: running.filter((r) => JOB_TYPE_DEFINITIONS[r.jobType as JobType]?.workKind === kind).reduce((n, r) => n + Number(r.n), 0),
    oldest_queued_at: stats[kind].oldestQueuedAt?.toISOString() ?? null,
    oldest_wait_seconds: Math.round(stats[kind].oldestAgeSeconds),
    required_tags: [...(ctx.config.ROUTING_TAGS[kind] ?? [])],
  }));
}
