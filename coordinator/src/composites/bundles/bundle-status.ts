import { eq } from 'drizzle-orm';
import { FAILURES } from '@cutroom/shared/failures';
import { JOB_TYPES, type JobType } from '@cutroom/shared/job-types';
import type { Tx } from '../../db/database.ts';
import { jobs, type JobRow } from '../../db/schema.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { addMs } from '../../lib/clock.ts';
import { queueShareRefund } from '../../payments/ledger.ts';
import { bundleParams } from './bundle-params.ts';

const ENDED = new Set(['completed', 'failed', 'deleted']);

/**
 * A clip bundle after one of its children ended, in the transaction that ended it (the job-ended
 * hook, jobs/job-ended.ts, with the bundle row locked, so two children ending at once are decided
 * one after the other and the last child to end always settles the bundle):
 * - a child that failed refunds its share of the bundle's payment (one clip's price, not the
 *   whole bundle: payments/ledger.ts queueShareRefund);
 * - the bundle stays `analyzing` while any child is queued or running, then ends `completed` when
 *   at least one child completed (error_message counts the failed ones) or `failed` + `refunded`
 *   when every child failed (their shares add up to the whole payment, so nothing more is refunded).
 */
export async function bundleChildEnded(tx: Tx, bundle: JobRow, child: JobRow, now: Date): Promise<void> {
  if (child.status === 'failed' && child.errorCode && FAILURES[child.errorCode].refund) {
    await queueShareRefund(tx, { id: child.id, parentJobId: bundle.id, priceCents: child.priceCents }, now);
  }
  await settleBundle(tx, bundle, now);
}

/** Ends a bundle whose children all ended; nothing while one still runs. */
export async function settleBundle(tx: Tx, bundle: JobRow, now: Date): Promise<JobRow | null> {
  if (bundle.status !== 'analyzing') return null;
  const children = await tx
    .select({ id: jobs.id, status: jobs.status, errorCode: jobs.errorCode, errorMessage: jobs.errorMessage })
    .from(jobs)
    .where(eq(jobs.parentJobId, bundle.id));
  if (children.some((c) => !ENDED.has(c.status))) return null;
  const index = new Map(bundleParams(bundle).clips.map((c) => [c.job_id, c.index]));
  const failed = children.filter((c) => c.status !== 'completed').sort((a, b) => (index.get(a.id) ?? 0) - (index.get(b.id) ?? 0));
  const why = failed.map((c) => `clip ${index.get(c.id) ?? '?'}: ${c.errorMessage ?? 'failed'}`).join('; ');
  const retention = JOB_TYPES[bundle.jobType as JobType].retentionHours * 3600_000;
  if (failed.length < children.length) {
    return transitionJob(tx, {
      jobId: bundle.id,
      from: 'analyzing',
      to: 'completed',
      reason: failed.length ? `${children.length - failed.length} of ${children.length} clips delivered` : 'all clips delivered',
      now,
      patch: {
        completedAt: now,
        expiresAt: addMs(now, retention),
        errorMessage: failed.length ? `${failed.length} of ${children.length} clips failed and were refunded (one clip's price each): ${why}` : null,
      },
    });
  }
  return transitionJob(tx, {
    jobId: bundle.id,
    from: 'analyzing',
    to: 'failed',
    reason: 'every clip failed',
    now,
    patch: {
      paymentStatus: 'refunded',
      errorCode: failed[0]?.errorCode ?? null,
      errorMessage: `every clip failed and was refunded: ${why}`,
      completedAt: now,
      expiresAt: addMs(now, retention),
    },
  });
}
