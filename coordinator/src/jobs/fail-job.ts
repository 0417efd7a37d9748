import type { SQL } from 'drizzle-orm';
import { FAILURES, type FailureCode } from '@cutroom/shared/failures';
import type { JobStatus } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { addMs } from '../lib/clock.ts';
import { queueRefund } from '../payments/ledger.ts';
import { ACTIVE_STATUSES } from './transitions.ts';
import { transitionJob } from './transition-job.ts';

/**
 * Moves a job to `failed`, shows it refunded and queues the refund of its charge in the same
 * transaction (every failure class refunds: shared/src/failures.ts). `message` is what the caller
 * reads: pass it through failureMessage(). Billing-disabled jobs were prepaid with 0: nothing to pay back.
 * A composite's child leaves the money to its parent (job-ended.ts).
 */
export async function failJob(
  tx: Tx,
  input: {
    jobId: string;
    now: Date;
    code: FailureCode;
    message: string;
    attemptId?: string | null;
    where?: SQL;
    from?: readonly JobStatus[];
  },
) {
  const row = await transitionJob(tx, {
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
      ...(FAILURES[input.code].refund && { paymentStatus: 'refunded' as const }),
      currentAttemptId: null,
      leaseExpiresAt: null,
      completedAt: input.now,
      // Keep a failed job's source a day so the caller can inspect it; the sweeper then removes it.
      expiresAt: addMs(input.now, 24 * 3600_000),
    },
  });
  // Same transaction: the job cannot end failed without its refund queued (the refunder pays it out).
  // A composite's child was paid by its parent: the parent gives back what it owes, its own way,
  // in the job-ended hook transitionJob ran (a bundle refunds the child's share, a product
  // captures less of its hold).
  if (row && !row.parentJobId && FAILURES[input.code].refund) await queueRefund(tx, input.jobId, input.now);
  return row;
}
