import { and, isNull, lt, or } from 'drizzle-orm';
import type { CoordinatorConfig } from '../config.ts';
import type { Tx } from '../db/database.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { openJobExpired } from '../job-types/lifecycle.ts';
import { OPEN_JOB_TTL_MS } from './job-rows.ts';
import { transitionJob } from './transition-job.ts';

export { OPEN_JOB_TTL_MS };

/**
 * Jobs that never start: `pending` (never paid) and `uploading` (paid, upload never completed)
 * carry an expiry like finished jobs do, and the sweeper deletes them with their objects.
 *
 * - created: expires OPEN_JOB_TTL_MS later (time to pay and to ask for an upload URL);
 * - each upload URL handed out moves the expiry to that URL's end plus UPLOAD_MARGIN_MS (a PUT
 *   started just before the URL lapses may still be streaming, then complete-upload follows);
 * - a job is only expired once it has also been left alone that long (updated_at), so a job paid
 *   just before its creation expiry still gets a full upload window.
 */
export const UPLOAD_MARGIN_MS = 3600_000;
export const OPEN_STATUSES = ['pending', 'uploading'] as const;

/** How long after its last change (payment, upload URL) an open job is kept at least. */
export const uploadWindowMs = (config: Pick<CoordinatorConfig, 'PRESIGN_TTL_SECONDS'>): number => config.PRESIGN_TTL_SECONDS * 1000 + UPLOAD_MARGIN_MS;

/** The expiry an open job gets when an upload URL is handed out now. */
export const uploadUrlExpiry = (now: Date, config: Pick<CoordinatorConfig, 'PRESIGN_TTL_SECONDS'>): Date => addMs(now, uploadWindowMs(config));

/** Which open jobs are abandoned at `now` (rows created before expiries existed count from updated_at). */
export function abandonedWhere(now: Date, config: Pick<CoordinatorConfig, 'PRESIGN_TTL_SECONDS'>) {
  const quiet = lt(jobs.updatedAt, addMs(now, -uploadWindowMs(config)));
  return or(and(lt(jobs.expiresAt, now), quiet), and(isNull(jobs.expiresAt), lt(jobs.updatedAt, addMs(now, -OPEN_JOB_TTL_MS))));
}

/**
 * An abandoned open job becomes `deleted`, its objects scheduled for removal now (expires_at =
 * now: the sweeper's purge pass deletes `jobs/<id>/`). Nothing was processed, so a paid job is
 * paid back, in the same transaction; an agent product held its payment (a card hold, nothing
 * taken), so the release of that hold is made due instead (composites/products/product-status.ts),
 * never a refund. Null when the job moved meanwhile (paid, upload completed).
 */
export async function expireOpenJob(
  tx: Tx,
  job: Pick<JobRow, 'id' | 'status' | 'paymentStatus' | 'jobType'>,
  now: Date,
  config: Pick<CoordinatorConfig, 'PRESIGN_TTL_SECONDS'>,
): Promise<JobRow | null> {
  if (job.status !== 'pending' && job.status !== 'uploading') return null;
  const paid = job.paymentStatus === 'paid';
  const row = await transitionJob(tx, {
    jobId: job.id,
    from: job.status,
    to: 'deleted',
    reason: job.status === 'pending' ? 'expired unpaid' : 'upload not completed in time',
    now,
    where: abandonedWhere(now, config),
    patch: {
      expiresAt: now,
      errorMessage:
        job.status === 'pending'
          ? 'the job was not paid in time and has expired; create a new job'
          : `the upload was not completed in time and the job has expired${paid ? '; the payment was refunded' : ''}; create a new job`,
      ...(paid && { paymentStatus: 'refunded' as const }),
    },
  });
  if (row && paid) await openJobExpired(tx, row, now);
  return row;
}
