import { eq } from 'drizzle-orm';
import { JOB_TYPES, type JobType } from '@cutroom/shared/job-types';
import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Ctx } from '../context.ts';
import { checkoutSessions, sessions } from '../db/schema.ts';
import type { JobRow } from '../db/schema.ts';
import { canOfferStripe } from './mpp/stripe-method.ts';
import type { Charge } from './types.ts';

/** Whether a job's type is paid by a card hold of its worst case (the agent products), not a charge. */
export const isHeldJob = (job: Pick<JobRow, 'jobType'>): boolean => JOB_TYPES[job.jobType as JobType].pricing.by === 'hold';

/** What one job costs on each rail, from the prices stored on it at creation; a held job is a card hold. */
export function jobCharge(job: Pick<JobRow, 'id' | 'jobType' | 'mediaKind' | 'priceCents' | 'priceChainUnits'>): Charge {
  if (isHeldJob(job)) {
    const usd = (job.priceCents / 100).toFixed(2);
    return {
      description: `cutroom ${job.jobType} job ${job.id}: a hold of up to USD ${usd}, charged for what is delivered`,
      jobId: job.id,
      amounts: { card: BigInt(job.priceCents) },
      hold: true,
    };
  }
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
  const frac = (chainUnits % 1_000_000n)
    .toString()
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return { deposit_address: chain.recipient, network: chain.network, amount: `${whole}.${frac.padEnd(2, '0')}`, currency: 'USDC' };
}

/**
 * The checkout line of a job: one unit at its price, or for a batch priced per item (a clip
 * bundle) `quantity` units at the item price, so the payer sees "N × clip" and the processor's
 * total is the job's price.
 */
export function checkoutLineOf(job: Pick<JobRow, 'jobType' | 'priceCents' | 'params'>): { unitCents: number; quantity: number } {
  const quantity = job.params['quantity'];
  if (JOB_TYPES[job.jobType as JobType].pricing.by !== 'item' || typeof quantity !== 'number' || quantity < 1 || job.priceCents % quantity !== 0) {
    return { unitCents: job.priceCents, quantity: 1 };
  }
  return { unitCents: job.priceCents / quantity, quantity };
}

/**
 * Gets or creates the hosted card checkout of a job (one per job, idempotent at the processor
 * by job id). Null when the card rail is not configured, or cannot charge the job's price (below
 * the processor's minimum, `canOfferStripe`: the same rule as the MPP `stripe` method).
 */
export async function ensureCheckout(ctx: Ctx, job: JobRow): Promise<{ checkout_url: string; card_checkout_session_id: string } | null> {
  const card = ctx.billing.card;
  if (!card || !canOfferStripe(BigInt(job.priceCents), RAIL_CURRENCY.card)) return null;
  const [existing] = await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.jobId, job.id)).limit(1);
  if (existing) return { checkout_url: existing.url, card_checkout_session_id: existing.id };
  const line = checkoutLineOf(job);
  const created = await card.createCheckout({
    jobId: job.id,
    amountCents: line.unitCents,
    quantity: line.quantity,
    description: line.quantity > 1 ? `cutroom ${job.jobType}: ${line.quantity} clips (bundle ${job.id})` : jobCharge(job).description,
    idempotencyKey: `checkout:${job.id}`,
    // A held job's checkout only authorizes: the webhook books a hold, the job captures what it delivered.
    ...(isHeldJob(job) && { captureMethod: 'manual' as const }),
  });
  const now = ctx.clock.now();
  await ctx.db
    .insert(checkoutSessions)
    .values({ id: created.id, jobId: job.id, url: created.url, amountCents: job.priceCents, status: 'open', createdAt: now })
    .onConflictDoNothing();
  if (job.sessionId) await ctx.db.update(sessions).set({ cardCheckoutSessionId: created.id, updatedAt: now }).where(eq(sessions.id, job.sessionId));
  return { checkout_url: created.url, card_checkout_session_id: created.id };
}
