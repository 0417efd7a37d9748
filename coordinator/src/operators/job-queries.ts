import { and, asc, desc, eq, gte, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { JobStatus, JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobAttempts, jobEvents, jobOutputs, jobs, type JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { type ActionView, listActions } from './audit.ts';
import { jobLedger, type LedgerView } from './money.ts';

export const JobFilter = z.object({
  status: z.array(JobStatus).max(20).optional(),
  job_type: z.array(JobType).max(20).optional(),
  /** Jobs any of whose attempts ran on this agent. */
  agent_id: z.string().min(1).max(128).optional(),
  session_id: z.uuid().optional(),
  job_id: z.uuid().optional(),
  created_from: z.iso.datetime().optional(),
  created_to: z.iso.datetime().optional(),
  /** Page: jobs created before this (the last row's created_at + id). */
  before: z.object({ created_at: z.iso.datetime(), id: z.uuid() }).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type JobFilter = z.input<typeof JobFilter>;

export interface JobSummary {
  id: string;
  job_type: string;
  status: string;
  payment_status: string;
  payment_rail: string | null;
  session_id: string | null;
  original_filename: string;
  price_cents: number;
  attempt_count: number;
  current_attempt_id: string | null;
  progress: { stage: string; fraction: number; at: string } | null;
  /** The agent of the latest attempt (list answers only). */
  agent_id?: string | null;
  error_code: string | null;
  error_message: string | null;
  parent_job_id: string | null;
  bundle_job_id: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export const jobSummary = (j: JobRow): JobSummary => ({
  id: j.id,
  job_type: j.jobType,
  status: j.status,
  payment_status: j.paymentStatus,
  payment_rail: j.paymentRail,
  session_id: j.sessionId,
  original_filename: j.originalFilename,
  price_cents: j.priceCents,
  attempt_count: j.attemptCount,
  current_attempt_id: j.currentAttemptId,
  progress: j.progress ?? null,
  error_code: j.errorCode,
  error_message: j.errorMessage,
  parent_job_id: j.sourceJobId,
  bundle_job_id: j.parentJobId,
  created_at: j.createdAt.toISOString(),
  updated_at: j.updatedAt.toISOString(),
  completed_at: j.completedAt?.toISOString() ?? null,
});

/** Jobs newest first, filtered; `next` pages on. */
export async function listJobs(ctx: Ctx, input: JobFilter): Promise<{ jobs: JobSummary[]; next: { created_at: string; id: string } | null }> {
  const f = JobFilter.parse(input);
  const where: (SQL | undefined)[] = [
    f.status?.length ? inArray(jobs.status, f.status) : undefined,
    f.job_type?.length ? inArray(jobs.jobType, f.job_type) : undefined,
    f.session_id ? eq(jobs.sessionId, f.session_id) : undefined,
    f.job_id ? eq(jobs.id, f.job_id) : undefined,
    f.created_from ? gte(jobs.createdAt, new Date(f.created_from)) : undefined,
    f.created_to ? lte(jobs.createdAt, new Date(f.created_to)) : undefined,
    f.agent_id ? inArray(jobs.id, ctx.db.select({ id: jobAttempts.jobId }).from(jobAttempts).where(eq(jobAttempts.agentId, f.agent_id))) : undefined,
    f.before
      ? or(lt(jobs.createdAt, new Date(f.before.created_at)), and(eq(jobs.createdAt, new Date(f.before.created_at)), lt(jobs.id, f.before.id)))
      : undefined,
  ];
  const latestAgent = sql<
    string | null
  >`(select ${jobAttempts.agentId} from ${jobAttempts} where ${jobAttempts.jobId} = ${jobs.id} order by ${jobAttempts.startedAt} desc limit 1)`;
  const rows = await ctx.db
    .select({ job: jobs, agentId: latestAgent })
    .from(jobs)
    .where(and(...where))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(f.limit + 1);
  const page = rows.slice(0, f.limit);
  const last = page.at(-1)?.job;
  return {
    jobs: page.map((r) => ({ ...jobSummary(r.job), agent_id: r.agentId })),
    next: rows.length > f.limit && last ? { created_at: last.createdAt.toISOString(), id: last.id } : null,
  };
}

export interface JobTimeline {
  job: JobSummary & { params: Record<string, unknown>; media: Record<string, unknown> | null; expires_at: string | null; lease_expires_at: string | null };
  events: { id: number; from: string | null; to: string; reason: string; attempt_id: string | null; at: string }[];
  attempts: {
    id: string;
    agent_id: string;
    started_at: string;
    ended_at: string | null;
    outcome: string | null;
    error_code: string | null;
    error_message: string | null;
  }[];
  outputs: { role: string; content_type: string | null; bytes: number | null; storage_key: string | null; external_url: string | null; created_at: string }[];
  ledger: LedgerView[];
  actions: ActionView[];
  children: JobSummary[];
}

/** Everything about one job an operator may need, in one answer. */
export async function jobTimeline(ctx: Ctx, jobId: string): Promise<JobTimeline> {
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) throw new AppError('not_found', `no job ${jobId}`);
  const [events, attempts, outputs, ledger, actions, children] = await Promise.all([
    ctx.db.select().from(jobEvents).where(eq(jobEvents.jobId, jobId)).orderBy(asc(jobEvents.id)),
    ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId)).orderBy(asc(jobAttempts.startedAt)),
    ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId)).orderBy(asc(jobOutputs.role)),
    jobLedger(ctx, jobId),
    listActions(ctx.db, { kind: 'job', id: jobId }),
    ctx.db.select().from(jobs).where(eq(jobs.parentJobId, jobId)).orderBy(asc(jobs.createdAt)),
  ]);
  return {
    job: {
      ...jobSummary(job),
      params: job.params,
      media: job.media ?? null,
      expires_at: job.expiresAt?.toISOString() ?? null,
      lease_expires_at: job.leaseExpiresAt?.toISOString() ?? null,
    },
    events: events.map((e) => ({ id: e.id, from: e.fromStatus, to: e.toStatus, reason: e.reason, attempt_id: e.attemptId, at: e.createdAt.toISOString() })),
    attempts: attempts.map((a) => ({
      id: a.id,
      agent_id: a.agentId,
      started_at: a.startedAt.toISOString(),
      ended_at: a.endedAt?.toISOString() ?? null,
      outcome: a.outcome,
      error_code: a.errorCode,
      error_message: a.errorMessage,
    })),
    outputs: outputs.map((o) => ({
      role: o.role,
      content_type: o.contentType,
      bytes: o.bytes,
      storage_key: o.storageKey,
      external_url: o.externalUrl,
      created_at: o.createdAt.toISOString(),
    })),
    ledger,
    actions,
    children: children.map(jobSummary),
  };
}
