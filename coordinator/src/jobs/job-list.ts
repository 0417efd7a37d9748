import { and, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import { JOB_LIST_DEFAULT, type JobList, type ListJobsQuery } from '@cutroom/shared/api';
import type { DbOrTx } from '../db/database.ts';
import { jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { jobSummaryOf } from './job-view.ts';

/**
 * A page position: the last listed job's creation time and id. Jobs are listed newest first by
 * (created_at, id), so a page continues strictly after that pair (keyset pagination): a job created
 * while a caller pages appears on no later page and moves nothing, and no job is listed twice.
 * The cursor only says where to continue; which jobs may be seen is always the caller's session.
 */
interface Position {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(p: Position): string {
  return Buffer.from(`${p.at.getTime()}.${p.id}`).toString('base64url');
}

/** A cursor this service wrote; anything else is a 400 (not an empty page). */
export function decodeCursor(cursor: string): Position {
  const bad = () => new AppError('invalid_request', 'cursor is not a next_cursor this service returned: start again without a cursor');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  const m = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || !UUID.test(m[2]!)) throw bad();
  return { at: new Date(Number(m[1])), id: m[2]! };
}

/**
 * One page of a session's jobs, newest first, with the filters of `ListJobsQuery`. Served by the
 * (session_id, created_at) index. Fetches one row more than the page to know whether a next page
 * exists, so the last page says so (next_cursor null) instead of leaving an empty page to fetch.
 */
export async function listSessionJobs(db: DbOrTx, sessionId: string, q: ListJobsQuery): Promise<JobList> {
  const limit = q.limit ?? JOB_LIST_DEFAULT;
  const where: (SQL | undefined)[] = [eq(jobs.sessionId, sessionId)];
  if (q.status) where.push(eq(jobs.status, q.status));
  if (q.job_type) where.push(eq(jobs.jobType, q.job_type));
  if (q.source_job_id) where.push(eq(jobs.sourceJobId, q.source_job_id));
  if (q.bundle_job_id) where.push(eq(jobs.parentJobId, q.bundle_job_id));
  if (q.created_after) where.push(gte(jobs.createdAt, new Date(q.created_after)));
  if (q.created_before) where.push(lt(jobs.createdAt, new Date(q.created_before)));
  if (q.cursor) {
    const p = decodeCursor(q.cursor);
    where.push(or(lt(jobs.createdAt, p.at), and(eq(jobs.createdAt, p.at), lt(jobs.id, p.id))));
  }
  const rows = await db
    .select()
    .from(jobs)
    .where(and(...where))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    jobs: page.map(jobSummaryOf),
    next_cursor: rows.length > limit && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}
