import { eq } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { checkoutSessions, jobs, sessions } from '../db/schema.ts';
import type { Tx } from '../db/database.ts';
import type { JobRow } from '../jobs/job-access.ts';
import { collectPayment, type Paid, type PaymentInput } from './gate.ts';
import { recordMovement } from './ledger.ts';
import { markJobPaid } from './mark-paid.ts';
import { ownerTagOfSession } from './owner-tag.ts';
import type { Charge, Settlement } from './types.ts';

/** What one job costs on each rail, from the prices stored on it at creation. */
export function jobCharge(job: Pick<JobRow, 'id' | 'jobType' | 'mediaKind' | 'priceCents' | 'priceChainUnits'>): Charge {
  return {
    description: `cutroom ${job.jobType}${job.mediaKind ? ` (${job.mediaKind})` : ''} job ${job.id}`,
    jobId: job.id,
    amounts: { card: BigInt(job.priceCents), ...(job.priceChainUnits != null && { chain: job.priceChainUnits }) },
  };
}

/** MppDepositInfo for CreateJobResponse: where and how much to pay on the chain rail. */
export function depositInfo(ctx: Ctx, chainUnits: bigint | null) {
  const chain = ctx.billing.chain;
  if (!chain || chainUnits == null) return undefined;
  const whole = chainUnits / 1_000_000n;
  const frac = (chainUnits % 1_000_000n).toString().padStart(6, '0').replace(/0{1,4}$/, '');
  return { deposit_address: chain.recipient, network: chain.network, amount: `${whole}.${frac.padEnd(2, '0')}`, currency: 'USDC' };
}

/**
 * Gets or creates the hosted card checkout of a job (one per job, idempotent at the processor
 * by job id). Null when the card rail is not configured.
 */
export async function ensureCheckout(ctx: Ctx, job: JobRow): Promise<{ checkout_url: string; card_checkout_session_id: string } | null> {
  const card = ctx.billing.card;
  if (!card) return null;
  const [existing] = await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.jobId, job.id)).limit(1);
  if (existing) return { checkout_url: existing.url, card_checkout_session_id: existing.id };
  const created = await card.createCheckout({ jobId: job.id, amountCents: job.priceCents, description: jobCharge(job).description, idempotencyKey: `checkout:${job.id}` });
  const now = ctx.clock.now();
  await ctx.db.insert(checkoutSessions).values({ id: created.id, jobId: job.id, url: created.url, amountCents: job.priceCents, status: 'open', createdAt: now }).onConflictDoNothing();
  if (job.sessionId) await ctx.db.update(sessions).set({ cardCheckoutSessionId: created.id, updatedAt: now }).where(eq(sessions.id, job.sessionId));
  return { checkout_url: created.url, card_checkout_session_id: created.id };
}

/**
 * Pays a pending job at a payment-gated call (upload-url, complete-upload): 402 with the offer
 * when no credential came, otherwise settle and mark the job paid in one transaction.
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

export async function reloadJob(ctx: Ctx, id: string): Promise<JobRow> {
  const [row] = await ctx.db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return row!;
}

/** A second payment for an already-paid job goes back to its payer. */
export async function queueDuplicateRefund(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<void> {
  await recordMovement(tx, {
    jobId, rail: s.rail, kind: 'refund', amount: s.amount, currency: s.currency, state: 'pending',
    payer: s.payer, reference: null, chargeReference: s.reference, idempotencyKey: `refund:duplicate:${s.reference}`, now,
  });
}
