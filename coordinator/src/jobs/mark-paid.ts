import { eq } from 'drizzle-orm';
import type { Tx } from '../db/database.ts';
import { jobs, type JobPatch } from '../db/schema.ts';
import { startPaidJob } from '../job-types/lifecycle.ts';
import { settlementCents } from '../payments/ledger.ts';
import type { Settlement } from '../payments/types.ts';

/**
 * Records a payment inside the transaction that books the charge (payments call back into jobs
 * only through the `onSettled` they are handed, never directly): what a paid job does next is its
 * type's (job-types/lifecycle.ts startPaidJob: an upload job waits for its upload, a derivative
 * starts, a clip bundle starts its children). Returns false when the job was no longer pending
 * (the caller must then refund).
 */
export async function markJobPaid(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<boolean> {
  const patch: JobPatch = { paymentStatus: 'paid', paymentRail: s.rail, paymentReference: s.reference, payer: s.payer, amountPaidCents: settlementCents(s) };
  const [job] = await tx.select({ id: jobs.id, jobType: jobs.jobType }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return false;
  return (await startPaidJob(tx, job, now, `paid (${s.method})`, patch)) !== null;
}
