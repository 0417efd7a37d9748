import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import { recordMovement } from './ledger.ts';

/**
 * Hold-then-capture on the card rail, for bundles whose price depends on what is delivered
 * (clips-from-video: authorize the worst case, charge what was cut). Every step is keyed by the
 * job, so a retried step neither holds nor captures twice, and each lands in the ledger.
 */
export interface Hold {
  jobId: string;
  paymentIntentId: string;
  amountCents: number;
}

function card(ctx: Ctx) {
  if (!ctx.billing.card) throw new AppError('invalid_request', 'card payments are not configured on this server');
  return ctx.billing.card;
}

/** Authorizes `amountCents` on a Shared Payment Token without taking it. */
export async function placeHold(ctx: Ctx, input: { jobId: string; spt: string; amountCents: number }): Promise<Hold> {
  const { paymentIntentId, amountCapturable } = await card(ctx).authorizeHold({
    spt: input.spt,
    amountCents: input.amountCents,
    currency: RAIL_CURRENCY.card,
    idempotencyKey: `hold:${input.jobId}`,
    metadata: { job_id: input.jobId },
  });
  await recordMovement(ctx.db, {
    jobId: input.jobId,
    rail: 'card',
    kind: 'hold',
    amount: BigInt(amountCapturable),
    currency: RAIL_CURRENCY.card,
    state: 'done',
    reference: paymentIntentId,
    idempotencyKey: `hold:${input.jobId}`,
    now: ctx.clock.now(),
  });
  return { jobId: input.jobId, paymentIntentId, amountCents: amountCapturable };
}

/**
 * Charges what was delivered and lets the rest of the hold go. Delivering nothing releases the
 * whole hold. Returns the captured amount.
 */
export async function settleHold(ctx: Ctx, hold: Hold, deliveredCents: number): Promise<{ capturedCents: number; releasedCents: number }> {
  if (!Number.isInteger(deliveredCents) || deliveredCents < 0 || deliveredCents > hold.amountCents) {
    throw new AppError('invalid_request', `cannot capture ${deliveredCents} cents of a ${hold.amountCents}-cent hold`);
  }
  const rail = card(ctx);
  const now = ctx.clock.now();
  let captured = 0;
  if (deliveredCents > 0) {
    captured = (await rail.capture(hold.paymentIntentId, deliveredCents, `capture:${hold.jobId}`)).amountReceived;
    await recordMovement(ctx.db, {
      jobId: hold.jobId,
      rail: 'card',
      kind: 'capture',
      amount: BigInt(captured),
      currency: RAIL_CURRENCY.card,
      state: 'done',
      reference: hold.paymentIntentId,
      chargeReference: hold.paymentIntentId,
      idempotencyKey: `capture:${hold.jobId}`,
      now,
    });
  } else {
    await rail.release(hold.paymentIntentId, `release:${hold.jobId}`);
  }
  const released = hold.amountCents - captured;
  if (released > 0) {
    await recordMovement(ctx.db, {
      jobId: hold.jobId,
      rail: 'card',
      kind: 'release',
      amount: BigInt(released),
      currency: RAIL_CURRENCY.card,
      state: 'done',
      reference: hold.paymentIntentId,
      chargeReference: hold.paymentIntentId,
      idempotencyKey: `release:${hold.jobId}`,
      now,
    });
  }
  return { capturedCents: captured, releasedCents: released };
}
