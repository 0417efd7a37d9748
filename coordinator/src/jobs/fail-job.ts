import type { SQL } from 'drizzle-orm';
import { FAILURES, type FailureCode } from '@cutroom/shared/failures';
import type { JobStatus } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { addMs } from '../lib/clock.ts';
import { queueRefund, queueShareRefund } from '../payments/ledger.ts';
import { settleBundle } from './bundle-status.ts';
import { ACTIVE_STATUSES } from './transitions.ts';
import { transitionJob } from './transition-job.ts';

/**
 * Moves a job to `failed`, shows it refunded and queues the refund of its charge in the same
 * transaction (every failure class refunds: shared/src/failures.ts). `message` is what the caller
 * reads: pass it through failureMessage(). Billing-disabled jobs were prepaid with 0: nothing to pay back.
 * A clip bundle's child refunds its share of the bundle's payment (one clip's price, not the whole
 * bundle) and may end its bundle (bundle-status.ts), in the same transaction.
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
  // An agent product's child finds no charge to share (its product holds a card authorization, a
  // `hold` row, never a `charge`): nothing is refunded; its product captures less instead.
  if (row?.bundleJobId) {
    if (FAILURES[input.code].refund) await queueShareRefund(tx, { id: row.id, bundleJobId: row.bundleJobId, priceCents: row.priceCents }, input.now);
    await settleBundle(tx, row.bundleJobId, input.now);
  } else if (row && FAILURES[input.code].refund) await queueRefund(tx, input.jobId, input.now);
  return row;
}
