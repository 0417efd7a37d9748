import type { Ctx } from '../context.ts';
import type { JobRow } from '../db/schema.ts';
import { collectPayment, type Paid, type PaymentInput } from '../payments/gate.ts';
import { jobCharge } from '../payments/job-payments.ts';
import { queueDuplicateRefund } from '../payments/ledger.ts';
import { ownerTagOfSession } from '../payments/owner-tag.ts';
import { reloadJob } from './job-access.ts';
import { markJobPaid } from './mark-paid.ts';

/**
 * Pays a pending job at a payment-gated call (upload-url, complete-upload, process): the gate
 * answers 402 with the offer when no credential came; otherwise it settles and this marks the
 * job paid in the same transaction.
 */
export async function payForJob(ctx: Ctx, job: JobRow, payment: PaymentInput): Promise<Paid> {
  const ownerTag = job.sessionId ? await ownerTagOfSession(ctx.db, ctx.billing.challengeSecret, job.sessionId) : undefined;
  return collectPayment(ctx, payment, { ...jobCharge(job), ...(ownerTag && { ownerTag }) }, async (tx, s) => {
    const now = ctx.clock.now();
    // Only if the job was paid some other way meanwhile (hosted checkout): keep the books
    // straight and pay this one back rather than keep money for nothing.
    if (!(await markJobPaid(tx, job.id, s, now))) await queueDuplicateRefund(tx, job.id, s, now);
  });
}

/** The job after taking its payment when one is due (billing on, still pending); receipt headers with it. */
export async function payIfDue(ctx: Ctx, job: JobRow, payment: PaymentInput): Promise<{ job: JobRow; receipt: Record<string, string> }> {
  if (job.paymentStatus !== 'pending' || !ctx.billing.enabled) return { job, receipt: {} };
  const paid = await payForJob(ctx, job, payment);
  return { job: await reloadJob(ctx.db, job.id), receipt: paid.headers };
}
