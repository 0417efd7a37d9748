import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/database.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';

export type { JobRow };

/** Loads a job the caller's session owns: 404 when absent, 403 when it belongs to another session. */
export async function loadOwnedJob(db: DbOrTx, jobId: string, sessionId: string): Promise<JobRow> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) throw new AppError('not_found', `job ${jobId} not found`);
  if (job.sessionId !== sessionId) throw new AppError('forbidden', 'this job belongs to another session');
  return job;
}

export const sourceKeyOf = (jobId: string): string => `jobs/${jobId}/source`;
export const outputKeyOf = (jobId: string, name: string): string => `jobs/${jobId}/outputs/${name}`;

/** The job as stored now (after a transaction changed it). */
export async function reloadJob(db: DbOrTx, id: string): Promise<JobRow> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  if (!row) throw new AppError('not_found', `job ${id} not found`);
  return row;
}
