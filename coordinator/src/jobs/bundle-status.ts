import { eq } from 'drizzle-orm';
import { JOB_TYPES, type JobType } from '@cutroom/shared/job-types';
import { isAgentProduct } from '@cutroom/shared/products';
import type { Tx } from '../db/database.ts';
import { jobs } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { productChildEnded } from './products/product-status.ts';
import { transitionJob } from './transition-job.ts';

const ENDED = new Set(['completed', 'failed', 'deleted']);

/**
 * A clip bundle's status follows its children: it stays `analyzing` while any child is queued or
 * running, then ends `completed` when at least one child completed (error_message counts the
 * failed ones, each refunded its share) or `failed` + `refunded` when every child failed (their
 * shares add up to the whole payment, so nothing more is refunded here).
 *
 * Called in the transaction that ended a child (fail-job.ts, end-attempt.ts). The bundle row is
 * locked first, so two children ending at once are decided one after the other and the second
 * sees the first one's end: the last child to end always settles the bundle. An agent product's
 * children (its find_clips step, then its clips) are decided by products/product-status.ts instead:
 * a product captures less of its hold rather than refunding shares.
 */
export async function settleBundle(tx: Tx, bundleId: string, now: Date) {
  const [bundle] = await tx.select().from(jobs).where(eq(jobs.id, bundleId)).limit(1).for('update');
  if (bundle?.status !== 'analyzing') return null;
  if (isAgentProduct(bundle.jobType)) return productChildEnded(tx, bundle, now);
  const children = await tx
    .select({ id: jobs.id, status: jobs.status, errorCode: jobs.errorCode, errorMessage: jobs.errorMessage })
    .from(jobs)
    .where(eq(jobs.bundleJobId, bundleId));
  if (children.some((c) => !ENDED.has(c.status))) return null;
  const index = new Map(((bundle.params['clips'] ?? []) as { job_id: string; index: number }[]).map((c) => [c.job_id, c.index]));
  const failed = children.filter((c) => c.status !== 'completed').sort((a, b) => (index.get(a.id) ?? 0) - (index.get(b.id) ?? 0));
  const why = failed.map((c) => `clip ${index.get(c.id) ?? '?'}: ${c.errorMessage ?? 'failed'}`).join('; ');
  const retention = JOB_TYPES[bundle.jobType as JobType].retentionHours * 3600_000;
  if (failed.length < children.length) {
    return transitionJob(tx, {
      jobId: bundleId,
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
    jobId: bundleId,
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
