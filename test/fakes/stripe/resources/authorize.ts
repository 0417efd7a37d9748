// Authorizing a PaymentIntent against its funding: one of Stripe's test PaymentMethods
// (pm_card_visa succeeds, pm_card_chargeDeclined… decline) or a Shared Payment Token, whose
// usage limits (currency, max_amount, expires_at, revocation) are checked before the card
// behind it. A decline is a 402 card_error with the PaymentIntent inside the error, and the
// PaymentIntent stays behind in requires_payment_method with last_payment_error, as on Stripe.
import { nowSec, type FakeContext } from '../context.ts';
import { FakeStripeError, noSuch } from '../errors.ts';
import { recordEvent } from '../events.ts';
import { newId, type Charge, type PaymentIntent, type SharedPaymentToken } from '../state.ts';

interface Decline {
  code: string;
  decline_code: string;
  message: string;
}

const generic: Decline = { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
const insufficient: Decline = { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' };
const expiredCard: Decline = { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' };

/** Stripe's documented test PaymentMethods the fake understands; null = approves. */
export const TEST_PAYMENT_METHODS: Record<string, Decline | null> = {
  pm_card_visa: null,
  pm_card_mastercard: null,
  pm_card_amex: null,
  pm_card_chargeDeclined: generic,
  pm_card_visa_chargeDeclined: generic,
  pm_card_chargeDeclinedInsufficientFunds: insufficient,
  pm_card_visa_chargeDeclinedInsufficientFunds: insufficient,
  pm_card_chargeDeclinedExpiredCard: expiredCard,
};

export type Funding = { kind: 'payment_method'; id: string } | { kind: 'spt'; token: SharedPaymentToken };

/** Resolves `payment_method` / `shared_payment_granted_token`; unknown ids are Stripe's 400 resource_missing. */
export function resolveFunding(ctx: FakeContext, source: { paymentMethod?: string; spt?: string }): Funding | null {
  if (source.spt !== undefined) {
    const token = ctx.state.sharedPaymentTokens.get(source.spt);
    if (!token) throw noSuch('shared_payment_granted_token', source.spt, 'shared_payment_granted_token', 400);
    return { kind: 'spt', token };
  }
  if (source.paymentMethod !== undefined) {
    if (!(source.paymentMethod in TEST_PAYMENT_METHODS)) throw noSuch('PaymentMethod', source.paymentMethod, 'payment_method', 400);
    return { kind: 'payment_method', id: source.paymentMethod };
  }
  return null;
}

/** Why a token cannot pay `amount` now, or null. Limits are checked before the card. */
function tokenRefusal(ctx: FakeContext, token: SharedPaymentToken, pi: PaymentIntent): Decline | null {
  const refuse = (message: string): Decline => ({ ...generic, message });
  if (token.revokedAt !== null) return refuse('The shared payment token has been revoked.');
  if (token.expiresAt !== null && token.expiresAt <= nowSec(ctx)) return refuse('The shared payment token has expired.');
  if (token.currency !== pi.currency) return refuse(`The shared payment token is limited to ${token.currency}.`);
  if (token.maxAmount !== null && token.amountUsed + pi.amount > token.maxAmount) {
    return refuse('The amount exceeds the usage limit of the shared payment token.');
  }
  return TEST_PAYMENT_METHODS[token.paymentMethod] ?? null;
}

/** Confirms `pi` (status must allow it; the caller checked): approve → charge, or decline → 402. */
export function authorize(ctx: FakeContext, pi: PaymentIntent, funding: Funding): void {
  const paymentMethod = funding.kind === 'spt' ? funding.token.paymentMethod : funding.id;
  const decline = funding.kind === 'spt' ? tokenRefusal(ctx, funding.token, pi) : (TEST_PAYMENT_METHODS[funding.id] ?? null);
  const isAutomatic = pi.capture_method !== 'manual';
  const charge: Charge = {
    id: newId('ch'),
    object: 'charge',
    amount: pi.amount,
    amount_captured: decline || !isAutomatic ? 0 : pi.amount,
    amount_refunded: 0,
    captured: !decline && isAutomatic,
    created: nowSec(ctx),
    currency: pi.currency,
    failure_code: decline?.code ?? null,
    failure_message: decline?.message ?? null,
    livemode: false,
    metadata: {},
    paid: !decline,
    payment_intent: pi.id,
    payment_method: paymentMethod,
    refunded: false,
    status: decline ? 'failed' : 'succeeded',
  };
  ctx.state.charges.set(charge.id, charge);
  pi.latest_charge = charge.id;
  pi.payment_method = paymentMethod;
  if (decline) refuse(ctx, pi, charge, decline);

  if (funding.kind === 'spt') {
    funding.token.amountUsed += pi.amount;
    ctx.state.intentTokens.set(pi.id, funding.token.id);
  }
  pi.last_payment_error = null;
  if (isAutomatic) {
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
  } else {
    pi.status = 'requires_capture';
    pi.amount_capturable = pi.amount;
  }
  recordEvent(ctx, 'charge.succeeded', charge);
  recordEvent(ctx, isAutomatic ? 'payment_intent.succeeded' : 'payment_intent.amount_capturable_updated', pi);
}

function refuse(ctx: FakeContext, pi: PaymentIntent, charge: Charge, decline: Decline): never {
  pi.status = 'requires_payment_method';
  pi.last_payment_error = { type: 'card_error', ...decline, charge: charge.id, payment_method: { id: pi.payment_method } };
  recordEvent(ctx, 'charge.failed', charge);
  recordEvent(ctx, 'payment_intent.payment_failed', pi);
  throw new FakeStripeError({
    status: 402,
    type: 'card_error',
    message: decline.message,
    code: decline.code,
    extra: { decline_code: decline.decline_code, charge: charge.id, payment_intent: structuredClone(pi) },
  });
}

/** Gives a token back the share of a hold that was released (cancel, or the rest of a partial capture). */
export function releaseTokenShare(ctx: FakeContext, pi: PaymentIntent, amount: number): void {
  const tokenId = ctx.state.intentTokens.get(pi.id);
  const token = tokenId ? ctx.state.sharedPaymentTokens.get(tokenId) : undefined;
  if (token) token.amountUsed = Math.max(0, token.amountUsed - amount);
}
