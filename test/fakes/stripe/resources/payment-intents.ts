// PaymentIntents: create (optionally confirming), retrieve, confirm, capture, cancel.
// Status machine as on Stripe: requires_payment_method → requires_confirmation → (confirm)
// succeeded | requires_capture → (capture) succeeded | (cancel) canceled. A partial capture
// finishes the PaymentIntent and releases the uncaptured rest of the authorization.
import { nowSec, type FakeContext } from '../context.ts';
import { invalidParam, invalidState, noSuch } from '../errors.ts';
import { recordEvent } from '../events.ts';
import type { FormObject } from '../form-body.ts';
import { readBool, readEnum, readExpand, readInt, readMetadata, readObject, readString, rejectUnknown, requireInt, requireString } from '../params.ts';
import { newId, type PaymentIntent } from '../state.ts';
import { authorize, releaseTokenShare, resolveFunding, type Funding } from './authorize.ts';

// Accepted so real client code is not refused; the fake ignores what it does not model.
const IGNORED_CREATE_PARAMS = [
  'automatic_payment_methods',
  'payment_method_types',
  'customer',
  'receipt_email',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'return_url',
  'off_session',
  'error_on_requires_action',
  'use_stripe_sdk',
  'setup_future_usage',
  'hooks',
  'application_fee_amount',
  'on_behalf_of',
  'transfer_data',
  'transfer_group',
  'confirmation_method',
  'mandate_data',
  'payment_method_options',
  'shipping',
];
const SOURCE_PARAMS = ['payment_method', 'shared_payment_granted_token', 'payment_method_data'];

/** The token may come top-level (mppx, the SPT guide) or as payment_method_data[shared_payment_granted_token] (newer API versions). */
function readSource(p: FormObject): { paymentMethod?: string; spt?: string } {
  const pmData = readObject(p, 'payment_method_data');
  if (pmData) rejectUnknown(pmData, ['type', 'shared_payment_granted_token', 'billing_details', 'metadata'], 'payment_method_data');
  const spt = readString(p, 'shared_payment_granted_token') ?? (pmData && readString(pmData, 'shared_payment_granted_token'));
  const paymentMethod = readString(p, 'payment_method');
  if (spt !== undefined && paymentMethod !== undefined) {
    throw invalidParam('You may only specify one of these parameters: payment_method, shared_payment_granted_token.', 'parameter_invalid_string');
  }
  return { ...(spt !== undefined && { spt }), ...(paymentMethod !== undefined && { paymentMethod }) };
}

export function createPaymentIntent(ctx: FakeContext) {
  const p = ctx.req.body;
  rejectUnknown(p, ['amount', 'currency', 'capture_method', 'confirm', 'metadata', 'description', 'expand', ...SOURCE_PARAMS, ...IGNORED_CREATE_PARAMS]);
  const amount = requireInt(p, 'amount', { min: 1 });
  const currency = requireString(p, 'currency').toLowerCase();
  if (amount < ctx.settings.minimumChargeAmount) {
    throw invalidParam(`Amount must be at least ${ctx.settings.minimumChargeAmount} (smallest currency unit)`, 'amount_too_small', 'amount');
  }
  const captureMethod = readEnum(p, 'capture_method', ['automatic', 'automatic_async', 'manual'] as const) ?? 'automatic_async';
  const confirm = readBool(p, 'confirm') ?? false;
  const source = readSource(p);
  const funding = resolveFunding(ctx, source);
  if (confirm && !funding) {
    throw invalidParam("You cannot confirm this PaymentIntent because it's missing a payment method.", 'parameter_missing', 'payment_method');
  }
  const id = newId('pi');
  const pi: PaymentIntent = {
    id,
    object: 'payment_intent',
    amount,
    amount_capturable: 0,
    amount_received: 0,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: captureMethod,
    client_secret: `${id}_secret_${newId('x').slice(2)}`,
    confirmation_method: 'automatic',
    created: nowSec(ctx),
    currency,
    description: readString(p, 'description') ?? null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: readMetadata(p),
    payment_method: funding?.kind === 'payment_method' ? funding.id : null,
    payment_method_types: ['card'],
    status: funding ? 'requires_confirmation' : 'requires_payment_method',
  };
  ctx.state.paymentIntents.set(id, pi);
  if (funding?.kind === 'spt') ctx.state.intentTokens.set(id, funding.token.id);
  recordEvent(ctx, 'payment_intent.created', pi);
  if (confirm && funding) authorize(ctx, pi, funding);
  return present(ctx, pi);
}

export function getIntent(ctx: FakeContext): PaymentIntent {
  const id = ctx.req.params['id'] as string;
  const pi = ctx.state.paymentIntents.get(id);
  if (!pi) throw noSuch('payment_intent', id, 'intent');
  return pi;
}

/** The response shape, with `expand[]=latest_charge` honoured. */
export function present(ctx: FakeContext, pi: PaymentIntent): Record<string, unknown> {
  const out: Record<string, unknown> = { ...structuredClone(pi) };
  if (readExpand(ctx.req.body).includes('latest_charge') && pi.latest_charge) {
    out['latest_charge'] = structuredClone(ctx.state.charges.get(pi.latest_charge));
  }
  return out;
}

export function retrievePaymentIntent(ctx: FakeContext) {
  rejectUnknown(ctx.req.body, ['expand', 'client_secret']);
  return present(ctx, getIntent(ctx));
}

const unexpectedState = (verb: 'confirm' | 'capture' | 'cancel', pi: PaymentIntent, allowed: string[]) =>
  invalidState(
    `You cannot ${verb} this PaymentIntent because it has a status of ${pi.status}. ` +
      `Only a PaymentIntent with one of the following statuses may be ${PAST[verb]}: ${allowed.join(', ')}.`,
    'payment_intent_unexpected_state',
  );
const PAST = { confirm: 'confirmed', capture: 'captured', cancel: 'canceled' } as const;

export function confirmPaymentIntent(ctx: FakeContext) {
  const p = ctx.req.body;
  rejectUnknown(p, ['expand', 'capture_method', ...SOURCE_PARAMS, ...IGNORED_CREATE_PARAMS]);
  const pi = getIntent(ctx);
  const allowed = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
  if (!allowed.includes(pi.status)) throw unexpectedState('confirm', pi, allowed);
  const captureMethod = readEnum(p, 'capture_method', ['automatic', 'automatic_async', 'manual'] as const);
  let funding: Funding | null = resolveFunding(ctx, readSource(p));
  if (!funding) {
    const tokenId = ctx.state.intentTokens.get(pi.id);
    const token = tokenId ? ctx.state.sharedPaymentTokens.get(tokenId) : undefined;
    if (token) funding = { kind: 'spt', token };
    else if (pi.payment_method) funding = resolveFunding(ctx, { paymentMethod: pi.payment_method });
  }
  if (!funding) {
    throw invalidParam("You cannot confirm this PaymentIntent because it's missing a payment method.", 'parameter_missing', 'payment_method');
  }
  if (captureMethod) pi.capture_method = captureMethod;
  authorize(ctx, pi, funding);
  return present(ctx, pi);
}

export function capturePaymentIntent(ctx: FakeContext) {
  const p = ctx.req.body;
  rejectUnknown(p, [
    'amount_to_capture',
    'metadata',
    'expand',
    'final_capture',
    'application_fee_amount',
    'statement_descriptor',
    'statement_descriptor_suffix',
  ]);
  const pi = getIntent(ctx);
  if (pi.status !== 'requires_capture') throw unexpectedState('capture', pi, ['requires_capture']);
  const amount = readInt(p, 'amount_to_capture', { min: 1 }) ?? pi.amount_capturable;
  if (amount > pi.amount_capturable) {
    throw invalidState(
      `The amount to capture (${amount}) is greater than the amount capturable (${pi.amount_capturable}).`,
      'amount_too_large',
      'amount_to_capture',
    );
  }
  const charge = ctx.state.charges.get(pi.latest_charge as string);
  if (charge) {
    charge.amount_captured = amount;
    charge.captured = true;
  }
  // One capture per authorization (no multicapture): the uncaptured rest goes back to the card.
  releaseTokenShare(ctx, pi, pi.amount_capturable - amount);
  pi.amount_received = amount;
  pi.amount_capturable = 0;
  pi.status = 'succeeded';
  pi.metadata = readMetadata(p, pi.metadata);
  if (charge) recordEvent(ctx, 'charge.captured', charge);
  recordEvent(ctx, 'payment_intent.succeeded', pi);
  return present(ctx, pi);
}

export function cancelPaymentIntent(ctx: FakeContext) {
  const p = ctx.req.body;
  rejectUnknown(p, ['cancellation_reason', 'expand']);
  const reason = readEnum(p, 'cancellation_reason', ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const);
  const pi = getIntent(ctx);
  const allowed = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];
  if (!allowed.includes(pi.status)) throw unexpectedState('cancel', pi, allowed);
  releaseTokenShare(ctx, pi, pi.amount_capturable); // a held authorization is released
  pi.amount_capturable = 0;
  pi.status = 'canceled';
  pi.canceled_at = nowSec(ctx);
  pi.cancellation_reason = reason ?? null;
  recordEvent(ctx, 'payment_intent.canceled', pi);
  return present(ctx, pi);
}
