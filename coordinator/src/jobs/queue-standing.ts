import { and, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { WorkKind } from '@cutroom/proto';
import type { JobEstimate, JobQueueStanding } from '@cutroom/shared/api';
import { ACTIVE_STATUSES, type JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { agents, jobAttempts, jobEvents, jobs } from '../db/schema.ts';
import { JOB_TYPE_DEFINITIONS } from '../job-types/agent-types.ts';
import { addMs } from '../lib/clock.ts';
import { AGENT_LIVE_MS } from '../operators/agent-state.ts';
import { estimateStart, figuresOf, type TypeFigures, type TypeHistory } from './queue-estimate.ts';
import type { JobRow } from './job-access.ts';

/** Recent successful attempts a type's figures are taken from. */
const HISTORY_ATTEMPTS = 20;
/** How long a coordinator reuses the figures it read (a read of a queued job must stay cheap). */
const FIGURES_TTL_MS = 60_000;

const typesOfKind = (kind: WorkKind): JobType[] =>
  (Object.entries(JOB_TYPE_DEFINITIONS) as [JobType, { workKind: WorkKind }][]).filter(([, d]) => d.workKind === kind).map(([t]) => t);

/** When a job entered the queue: its latest job event (the transition that queued it), as queue-stats.ts reads it (qualified by hand: drizzle leaves a lone table's columns unqualified). */
const queuedAt = sql<Date>`(select e.created_at from ${jobEvents} e where e.job_id = "jobs"."id" order by e.id desc limit 1)`;

const cache = new WeakMap<object, { at: number; figures: Map<string, TypeFigures> }>();

/** Every agent-run type's figures (queue-estimate.ts figuresOf), from one query, kept FIGURES_TTL_MS per coordinator. */
async function typeFigures(ctx: Pick<Ctx, 'db' | 'clock'>): Promise<Map<string, TypeFigures>> {
  const now = ctx.clock.now().getTime();
  const hit = cache.get(ctx.db);
  if (hit && now - hit.at < FIGURES_TTL_MS) return hit.figures;
  const ranked = ctx.db
    .select({
      jobType: jobs.jobType,
      seconds: sql<number>`extract(epoch from ${jobAttempts.endedAt} - ${jobAttempts.startedAt})::float8`.as('seconds'),
      mediaSeconds: sql<number | null>`${jobs.durationSeconds}`.as('media_seconds'),
      n: sql<number>`row_number() over (partition by ${jobs.jobType} order by ${jobAttempts.endedAt} desc)`.as('n'),
    })
    .from(jobAttempts)
    .innerJoin(jobs, eq(jobs.id, jobAttempts.jobId))
    .where(and(eq(jobAttempts.outcome, 'completed'), isNotNull(jobAttempts.endedAt)))
    .as('ranked');
  const rows = await ctx.db.select().from(ranked).where(sql`${ranked.n} <= ${HISTORY_ATTEMPTS}`);
  const history = new Map<string, TypeHistory & { attemptSeconds: number[] }>();
  for (const r of rows) {
    const h = history.get(r.jobType) ?? { attemptSeconds: [], measuredSeconds: 0, mediaMinutes: 0 };
    const s = Number(r.seconds);
    h.attemptSeconds.push(s);
    if (r.mediaSeconds !== null && Number(r.mediaSeconds) > 0) {
      h.measuredSeconds += s;
      h.mediaMinutes += Number(r.mediaSeconds) / 60;
    }
    history.set(r.jobType, h);
  }
  const figures = new Map(Object.keys(JOB_TYPE_DEFINITIONS).map((t) => [t, figuresOf(t, history.get(t))]));
  cache.set(ctx.db, { at: now, figures });
  return figures;
}

/** What runs on a kind and how many live agents take it. */
async function kindLoad(ctx: Pick<Ctx, 'db' | 'clock'>, kind: WorkKind) {
  const types = typesOfKind(kind);
  const liveSince = addMs(ctx.clock.now(), -AGENT_LIVE_MS);
  const [running, [slots]] = await Promise.all([
    ctx.db
      .select({ jobType: jobs.jobType, startedAt: jobAttempts.startedAt })
      .from(jobs)
      .innerJoin(jobAttempts, eq(jobAttempts.id, jobs.currentAttemptId))
      .where(and(inArray(jobs.jobType, types), inArray(jobs.status, [...ACTIVE_STATUSES]))),
    ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(agents)
      .where(and(eq(agents.state, 'active'), gt(agents.lastSeenAt, liveSince), sql`${agents.capabilities} -> 'work_kinds' ? ${kind}`)),
  ]);
  return { types, running, slots: Number(slots?.n ?? 0) };
}

/**
 * Where a queued job stands (position in its work kind's queue, 1 = next) and when it should
 * start; null for a job that is not waiting for an agent. Three small queries and the cached
 * figures: only a queued job's read pays for them.
 */
export async function queueStanding(ctx: Pick<Ctx, 'db' | 'clock'>, job: JobRow): Promise<JobQueueStanding | null> {
  const def = JOB_TYPE_DEFINITIONS[job.jobType];
  if (!def || job.currentAttemptId !== null || !(ACTIVE_STATUSES as readonly string[]).includes(job.status)) return null;
  const now = ctx.clock.now();
  const { types, running, slots } = await kindLoad(ctx, def.workKind);
  const [mine] = await ctx.db.select({ at: queuedAt }).from(jobs).where(eq(jobs.id, job.id));
  const mineAt = mine?.at ? new Date(mine.at) : job.updatedAt;
  const ahead = await ctx.db
    .select({ jobType: jobs.jobType })
    .from(jobs)
    .where(
      and(
        inArray(jobs.jobType, types),
        inArray(jobs.status, [...ACTIVE_STATUSES]),
        isNull(jobs.currentAttemptId),
        sql`(${queuedAt}, ${jobs.id}) < (${mineAt.toISOString()}::timestamptz, ${job.id}::uuid)`,
      ),
    )
    .orderBy(queuedAt, jobs.id);
  const figures = await typeFigures(ctx);
  const seconds = (t: string) => figures.get(t)!.attemptSeconds;
  const start = estimateStart({ kind: def.workKind, running, ahead: ahead.map((a) => a.jobType), slots }, now, seconds);
  return {
    position: ahead.length + 1,
    running: running.length,
    agents: slots,
    estimated_start_at: start ? start.toISOString() : null,
    estimated_processing_seconds: Math.round(seconds(job.jobType)),
    basis: figures.get(job.jobType)!.basis,
  };
}

/**
 * What a new job of `jobType` should cost in time, answered at creation before payment: seconds
 * per minute of media (the upload's length is not known yet), and the wait for an agent were it
 * queued now behind every job of its kind. Null for a type no agent runs.
 */
export async function creationEstimate(ctx: Pick<Ctx, 'db' | 'clock'>, jobType: JobType): Promise<JobEstimate | null> {
  const def = JOB_TYPE_DEFINITIONS[jobType];
  if (!def) return null;
  const now = ctx.clock.now();
  const { types, running, slots } = await kindLoad(ctx, def.workKind);
  const queued = await ctx.db
    .select({ jobType: jobs.jobType })
    .from(jobs)
    .where(and(inArray(jobs.jobType, types), inArray(jobs.status, [...ACTIVE_STATUSES]), isNull(jobs.currentAttemptId)));
  const figures = await typeFigures(ctx);
  const f = figures.get(jobType)!;
  const start = estimateStart({ kind: def.workKind, running, ahead: queued.map((q) => q.jobType), slots }, now, (t) => figures.get(t)!.attemptSeconds);
  return {
    processing_seconds_per_media_minute: Math.round(f.secondsPerMediaMinute * 10) / 10,
    typical_processing_seconds: Math.round(f.attemptSeconds),
    queue_wait_seconds: start ? Math.round((start.getTime() - now.getTime()) / 1000) : null,
    basis: f.basis,
  };
}
