import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import type { JobRow } from '../db/schema.ts';
import { PaymentRequiredError } from './gate.ts';
import { ensureCheckout } from './job-payments.ts';
import { canOfferStripe } from './mpp/stripe-method.ts';

/** POST /jobs/{id}/checkout: the job's hosted card checkout, created on first use. */
export async function checkoutFor(ctx: Ctx, job: JobRow): Promise<{ checkout_url: string; card_checkout_session_id: string }> {
  if (!ctx.billing.card) {
    throw new AppError(
      'invalid_request',
      ctx.billing.enabled
        ? 'card checkout is not configured on this server; pay with the chain rail (see the 402 of upload-url)'
        : 'billing is disabled on this server: jobs are created already paid',
    );
  }
  if (job.paymentStatus !== 'pending') throw new AppError('conflict', `this job needs no payment (payment_status ${job.paymentStatus})`);
  if (!cardCanCharge(job.priceCents)) {
    throw new AppError('invalid_request', `the card rail cannot charge ${(job.priceCents / 100).toFixed(2)} USD (below its minimum); pay with the chain rail`);
  }
  try {
    const checkout = await ensureCheckout(ctx, job);
    return checkout!;
  } catch (err) {
    if (err instanceof AppError) throw err;
    ctx.logger.warn({ job_id: job.id, err: err instanceof Error ? err.message : String(err) }, 'card processor unavailable');
    throw new AppError('unavailable', 'the card processor is unavailable right now; retry shortly');
  }
}

/** Whether the card rail can take an amount in cents at all (the processor's minimum: mppx's `canOffer` rule). */
export const cardCanCharge = (cents: number): boolean => canOfferStripe(BigInt(cents), RAIL_CURRENCY.card);

/**
 * The hosted checkout offered beside the challenges of a 402 / -32042: the job it pays and its
 * price, and, when the call that got it had no session, the session created to own that job
 * (`session_id`, `session_token`): the token is handed only to that caller, in that answer, so the
 * job a checkout pays is never unreachable and never reachable by someone who knows its id only.
 */
export interface CheckoutOffer {
  job_id: string;
  price_cents: number;
  checkout_url: string;
  card_checkout_session_id: string;
  session_id?: string;
  session_token?: string;
}

/**
 * A payment-required answer that also offers a hosted checkout (CheckoutOffer). It is a
 * PaymentRequiredError (the same challenges, problem and status); the transports add `checkout`
 * to what they answer: REST to the problem+json body of the 402, MCP to the -32042's data.
 */
export class PaymentRequiredWithCheckout extends PaymentRequiredError {
  readonly checkout: CheckoutOffer;
  constructor(err: PaymentRequiredError, checkout: CheckoutOffer) {
    super(err.offer, err.problem, err.message);
    this.checkout = checkout;
  }
}
