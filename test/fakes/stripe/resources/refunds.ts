// Refunds against the captured charge of a PaymentIntent (or a charge id). Several partial
// refunds may follow one another until the captured amount is used up; the charge keeps the
// running `amount_refunded` and turns `refunded: true` once everything captured went back.
import { nowSec, type FakeContext } from '../context.ts';
import { invalidParam, invalidState, noSuch } from '../errors.ts';
import { recordEvent } from '../events.ts';
import { readEnum, readInt, readMetadata, readString, rejectUnknown } from '../params.ts';
import { newId, type Charge, type Refund } from '../state.ts';

export function createRefund(ctx: FakeContext): Refund {
  const p = ctx.req.body;
  rejectUnknown(p, [
    'payment_intent',
    'charge',
    'amount',
    'reason',
    'metadata',
    'expand',
    'instructions_email',
    'refund_application_fee',
    'reverse_transfer',
    'origin',
  ]);
  const charge = findCharge(ctx, readString(p, 'payment_intent'), readString(p, 'charge'));
  const amount = readInt(p, 'amount', { min: 1 });
  const reason = readEnum(p, 'reason', ['duplicate', 'fraudulent', 'requested_by_customer'] as const);
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (remaining <= 0) throw invalidState(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
  if (amount !== undefined && amount > remaining) {
    throw invalidState(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, 'amount_too_large', 'amount');
  }
  const refund: Refund = {
    id: newId('re'),
    object: 'refund',
    amount: amount ?? remaining,
    charge: charge.id,
    created: nowSec(ctx),
    currency: charge.currency,
    metadata: readMetadata(p),
    payment_intent: charge.payment_intent,
    reason: reason ?? null,
    status: 'succeeded', // cards refund synchronously in test mode
  };
  ctx.state.refunds.set(refund.id, refund);
  charge.amount_refunded += refund.amount;
  charge.refunded = charge.amount_refunded === charge.amount_captured;
  recordEvent(ctx, 'refund.created', refund);
  recordEvent(ctx, 'charge.refunded', charge);
  return refund;
}

function findCharge(ctx: FakeContext, paymentIntentId: string | undefined, chargeId: string | undefined): Charge {
  if (chargeId !== undefined) {
    const charge = ctx.state.charges.get(chargeId);
    if (!charge) throw noSuch('charge', chargeId, 'charge', 400);
    return charge;
  }
  if (paymentIntentId === undefined) {
    throw invalidParam('One of the following params should be provided for this request: payment_intent or charge.', 'parameter_missing');
  }
  const pi = ctx.state.paymentIntents.get(paymentIntentId);
  if (!pi) throw noSuch('payment_intent', paymentIntentId, 'payment_intent', 400);
  const charge = pi.latest_charge ? ctx.state.charges.get(pi.latest_charge) : undefined;
  if (pi.status !== 'succeeded' || !charge) {
    throw invalidState(
      `This PaymentIntent (${pi.id}) does not have a successful charge to refund (status: ${pi.status}).`,
      'charge_not_refundable',
      'payment_intent',
    );
  }
  return charge;
}

export function retrieveRefund(ctx: FakeContext): Refund {
  rejectUnknown(ctx.req.body, ['expand']);
  const id = ctx.req.params['id'] as string;
  const refund = ctx.state.refunds.get(id);
  if (!refund) throw noSuch('refund', id, 'refund');
  return refund;
}

export function retrieveCharge(ctx: FakeContext): Charge {
  rejectUnknown(ctx.req.body, ['expand']);
  const id = ctx.req.params['id'] as string;
  const charge = ctx.state.charges.get(id);
  if (!charge) throw noSuch('charge', id, 'charge');
  return charge;
}
