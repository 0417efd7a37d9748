import type { Tx } from '../db/database.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import type { Settlement } from './types.ts';

/** USD cents a settlement is worth (USDC is 6-decimal and USD-pegged: 10_000 units = 1 cent). */
export function settlementCents(s: Settlement): number {
  return s.rail === 'card' ? Number(s.amount) : Number(s.amount / 10_000n);
}

/**
 * pending → uploading with the payment recorded, inside the transaction that books the charge.
 * Returns false when the job was no longer pending (the caller must then refund).
 */
export async function markJobPaid(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<boolean> {
  const row = await transitionJob(tx, {
    jobId, from: 'pending', to: 'uploading', reason: `paid (${s.method})`, now,
    patch: { paymentStatus: 'paid', paymentRail: s.rail, paymentReference: s.reference, payer: s.payer, amountPaidCents: settlementCents(s) },
  });
  return row !== null;
}
