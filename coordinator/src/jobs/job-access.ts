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

/**
 * Object keys. Everything a job stores lives under `jobs/<id>/`, so retention and deletion remove
 * one prefix:
 * - `upload`: where the caller's presigned PUT writes; complete-upload moves it to `source`, so a
 *   URL that is still valid can never change what agents process;
 * - `source`: the committed upload (no URL writes it);
 * - `outputs/<attempt_id>/<name>`: one folder per attempt, so a stale attempt's late upload lands
 *   in its own folder and never replaces the outputs the job completed with (job_outputs names them).
 */
export const jobPrefixOf = (jobId: string): string => `jobs/${jobId}/`;
export const uploadKeyOf = (jobId: string): string => `jobs/${jobId}/upload`;
export const sourceKeyOf = (jobId: string): string => `jobs/${jobId}/source`;
export const outputKeyOf = (jobId: string, attemptId: string, name: string): string => `jobs/${jobId}/outputs/${attemptId}/${name}`;

export type JobKey = { jobId: string } & ({ kind: 'upload' } | { kind: 'source' } | { kind: 'output'; attemptId: string; name: string } | { kind: 'other' });

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const JOB_KEY = new RegExp(`^jobs/(${UUID})/(.+)$`);
const OUTPUT_KEY = new RegExp(`^outputs/(${UUID})/([^/]+)$`);

/** What a key under `jobs/<id>/` is; null for a key outside any job. */
export function parseJobKey(key: string): JobKey | null {
  const m = JOB_KEY.exec(key);
  if (!m) return null;
  const [, jobId, rest] = m as unknown as [string, string, string];
  if (rest === 'upload') return { jobId, kind: 'upload' };
  if (rest === 'source') return { jobId, kind: 'source' };
  const out = OUTPUT_KEY.exec(rest);
  if (out) return { jobId, kind: 'output', attemptId: out[1]!, name: out[2]! };
  return { jobId, kind: 'other' };
}

/** The job as stored now (after a transaction changed it). */
export async function reloadJob(db: DbOrTx, id: string): Promise<JobRow> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  if (!row) throw new AppError('not_found', `job ${id} not found`);
  return row;
}
