import type { SQL } from 'drizzle-orm';
import type { JobStatus } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { addMs } from '../lib/clock.ts';
import { ACTIVE_STATUSES } from './transitions.ts';
import { transitionJob } from './transition-job.ts';

/**
 * Moves a job to `failed` and refunds it. Billing-disabled jobs were prepaid with 0, so the
 * refund only flips payment_status; the payment rails hook in here.
 */
export async function failJob(tx: Tx, input: {
  jobId: string; now: Date; code: string; message: string; attemptId?: string | null; where?: SQL;
  from?: readonly JobStatus[];
}) {
  return transitionJob(tx, {
    jobId: input.jobId,
    from: input.from ?? ACTIVE_STATUSES,
    to: 'failed',
    reason: `failed: ${input.code}`,
    now: input.now,
    attemptId: input.attemptId ?? null,
    where: input.where,
    patch: {
      errorCode: input.code,
      errorMessage: input.message,
      paymentStatus: 'refunded',
      currentAttemptId: null,
      leaseExpiresAt: null,
      completedAt: input.now,
      // Keep a failed job's source a day so the caller can inspect it; the sweeper then removes it.
      expiresAt: addMs(input.now, 24 * 3600_000),
    },
  });
}
