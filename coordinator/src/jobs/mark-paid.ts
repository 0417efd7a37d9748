import type { Tx } from '../db/database.ts';
import { settlementCents } from '../payments/ledger.ts';
import type { Settlement } from '../payments/types.ts';
import { transitionJob } from './transition-job.ts';

/**
 * pending → uploading with the payment recorded, inside the transaction that books the charge
 * (payments call back into jobs only through the `onSettled` they are handed, never directly).
 * Returns false when the job was no longer pending (the caller must then refund).
 */
export async function markJobPaid(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<boolean> {
  const row = await transitionJob(tx, {
    jobId,
    from: 'pending',
    to: 'uploading',
    reason: `paid (${s.method})`,
    now,
    patch: { paymentStatus: 'paid', paymentRail: s.rail, paymentReference: s.reference, payer: s.payer, amountPaidCents: settlementCents(s) },
  });
  return row !== null;
}
