import { eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { checkoutSessions, webhookEvents } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { queueDuplicateRefund, recordMovement } from './ledger.ts';
import type { CardRail } from './rails/card-rail.ts';
import type { Settlement } from './types.ts';

/** Marks the job paid in the webhook's transaction; false when it was no longer pending. */
export type OnCheckoutPaid = (tx: Tx, jobId: string, s: Settlement, now: Date) => Promise<boolean>;

/**
 * The authorization a completed checkout with manual capture left (a held job's checkout,
 * job-payments.ts): such a session completes `unpaid` with its PaymentIntent `requires_capture`.
 * Asked of the processor, not read off the event: only an authorization it confirms is booked.
 */
async function authorizedHold(card: CardRail, session: Stripe.Checkout.Session, pi: string | null): Promise<number | null> {
  if (session.status !== 'complete' || session.payment_status !== 'unpaid' || !pi) return null;
  const intent = await card.getPaymentIntent(pi);
  return intent.captureMethod === 'manual' && intent.status === 'requires_capture' && intent.amountCapturable > 0 ? intent.amountCapturable : null;
}

/**
 * Card processor webhook. The signature is verified on the raw body by the card rail; each
 * event id is applied once (a retried delivery is acknowledged and ignored). A completed
 * checkout marks its job paid and books the charge in one transaction; if the job was already
 * paid another way, the charge is booked and queued for refund. A checkout that only authorized
 * (manual capture: a held job) is booked as a `hold`; a duplicate one is "refunded" by the
 * refunder, which cancels an uncaptured authorization instead (rails/card-spt.ts refund).
 */
export async function handleCardWebhook(
  ctx: Ctx,
  rawBody: Buffer,
  signature: string | undefined,
  onPaid: OnCheckoutPaid,
): Promise<{ received: true; applied: boolean }> {
  const card = ctx.billing.card;
  if (!card) throw new AppError('not_found', 'card payments are not configured');
  let event: Stripe.Event;
  try {
    event = card.verifyWebhook(rawBody, signature);
  } catch (err) {
    // A forged or stale delivery is the sender's error: a plain 400, never a payment challenge.
    throw new AppError('invalid_request', `webhook rejected: ${err instanceof Error ? err.message : 'invalid signature'}`);
  }
  if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded') {
    return { received: true, applied: false };
  }
  const session = event.data.object as Stripe.Checkout.Session;
  const pi = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);
  const held = session.payment_status === 'paid' ? null : await authorizedHold(card, session, pi);
  if (session.payment_status !== 'paid' && held === null) return { received: true, applied: false };
  const kind = held === null ? ('charge' as const) : ('hold' as const);
  const now = ctx.clock.now();
  const applied = await ctx.db.transaction(async (tx) => {
    const [cs] = await tx.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id)).limit(1);
    if (!cs) {
      // Not recorded as processed: a redelivery after the session row exists still applies.
      ctx.logger.warn({ checkout_session: session.id }, 'webhook for an unknown checkout session');
      return false;
    }
    const fresh = await tx.insert(webhookEvents).values({ id: event.id, type: event.type, receivedAt: now }).onConflictDoNothing().returning();
    if (!fresh.length) return false;
    const reference = pi ?? session.id;
    const s: Settlement = {
      rail: 'card',
      method: 'checkout',
      amount: BigInt(held ?? session.amount_total ?? cs.amountCents),
      currency: RAIL_CURRENCY.card,
      reference,
      payer: null,
      ...(held !== null && { intent: 'hold' as const }),
    };
    await tx.update(checkoutSessions).set({ status: 'completed', paymentIntentId: reference, completedAt: now }).where(eq(checkoutSessions.id, cs.id));
    await recordMovement(tx, {
      jobId: cs.jobId,
      rail: 'card',
      kind,
      amount: s.amount,
      currency: s.currency,
      state: 'done',
      reference,
      payer: null,
      idempotencyKey: `${kind}:checkout:${cs.id}`,
      now,
    });
    if (!(await onPaid(tx, cs.jobId, s, now))) await queueDuplicateRefund(tx, cs.jobId, s, now);
    return true;
  });
  return { received: true, applied };
}
