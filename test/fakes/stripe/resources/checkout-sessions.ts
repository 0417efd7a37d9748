// Checkout Sessions in `mode: payment` with inline `price_data` line items: create, retrieve,
// expire, and completion as a paying customer does it on the hosted page (see ../control.ts and
// ../hosted-page.ts). Since API 2022-08-01 a session has no PaymentIntent until it is paid.
import { nowSec, type FakeContext } from '../context.ts';
import { FakeStripeError, invalidParam, invalidState, noSuch } from '../errors.ts';
import { recordEvent } from '../events.ts';
import type { FormObject } from '../form-body.ts';
import { readArray, readEnum, readInt, readMetadata, readObject, readString, rejectUnknown, requireInt, requireString } from '../params.ts';
import { newId, type CheckoutIntentData, type CheckoutSession, type LineItem, type PaymentIntent, type StripeEvent } from '../state.ts';
import { deliverEvent } from '../webhooks.ts';
import { authorize } from './authorize.ts';

const DAY_SEC = 24 * 3600;

export function createCheckoutSession(ctx: FakeContext): CheckoutSession {
  const p = ctx.req.body;
  rejectUnknown(p, [
    'mode',
    'line_items',
    'metadata',
    'success_url',
    'cancel_url',
    'client_reference_id',
    'customer_email',
    'expires_at',
    'payment_intent_data',
    'payment_method_types',
    'locale',
    'submit_type',
    'ui_mode',
    'expand',
    'allow_promotion_codes',
    'automatic_tax',
    'billing_address_collection',
  ]);
  const mode = requireString(p, 'mode');
  if (mode !== 'payment') throw invalidParam(`The fake supports mode=payment only (got ${mode}).`, 'parameter_invalid_string', 'mode');
  if ((readString(p, 'ui_mode') ?? 'hosted') !== 'hosted') throw invalidParam('The fake supports ui_mode=hosted only.', 'parameter_invalid_string', 'ui_mode');
  const items = readLineItems(p);
  const currency = items[0]?.currency as string;
  const total = items.reduce((sum, i) => sum + i.unit_amount * i.quantity, 0);
  if (total > 0 && total < ctx.settings.minimumChargeAmount) {
    throw invalidParam(`The Checkout Session's total amount must be at least ${ctx.settings.minimumChargeAmount}.`, 'amount_too_small', 'line_items');
  }
  const intentData = readIntentData(p);
  const created = nowSec(ctx);
  const expiresAt = readInt(p, 'expires_at') ?? created + DAY_SEC;
  if (expiresAt < created + 1800 || expiresAt > created + DAY_SEC) {
    throw invalidParam('expires_at must be between 30 minutes and 24 hours from now.', 'parameter_invalid_integer', 'expires_at');
  }
  const id = newId('cs_test', 58);
  const session: CheckoutSession = {
    id,
    object: 'checkout.session',
    amount_subtotal: total,
    amount_total: total,
    cancel_url: readString(p, 'cancel_url') ?? null,
    client_reference_id: readString(p, 'client_reference_id') ?? null,
    created,
    currency,
    customer_email: readString(p, 'customer_email') ?? null,
    expires_at: expiresAt,
    livemode: false,
    metadata: readMetadata(p),
    mode: 'payment',
    payment_intent: null,
    payment_status: total === 0 ? 'no_payment_required' : 'unpaid',
    status: 'open',
    success_url: readString(p, 'success_url') ?? null,
    ui_mode: 'hosted',
    url: `${ctx.settings.baseUrl}/c/pay/${id}`,
  };
  ctx.state.checkoutSessions.set(id, session);
  ctx.state.lineItems.set(id, items);
  ctx.state.checkoutIntentData.set(id, intentData);
  return session;
}

// payment_intent_data is applied when the customer pays; Stripe keeps it server-side too.
function readIntentData(p: FormObject): CheckoutIntentData {
  const data = readObject(p, 'payment_intent_data') ?? {};
  rejectUnknown(data, ['metadata', 'description', 'capture_method'], 'payment_intent_data');
  return {
    captureMethod: readEnum(data, 'capture_method', CAPTURE_METHODS, 'payment_intent_data[capture_method]') ?? 'automatic_async',
    description: readString(data, 'description') ?? null,
    metadata: readMetadata(data),
  };
}
const CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;

function readLineItems(p: FormObject): LineItem[] {
  const raw = readArray(p, 'line_items');
  if (!raw || raw.length === 0) throw invalidParam('Missing required param: line_items.', 'parameter_missing', 'line_items');
  const items = raw.map((entry, i): LineItem => {
    const name = `line_items[${i}]`;
    if (typeof entry !== 'object' || Array.isArray(entry)) throw invalidParam(`Invalid object: ${name}`, 'parameter_invalid_object', name);
    rejectUnknown(entry, ['price_data', 'quantity', 'price'], name);
    if (entry['price'] !== undefined) throw invalidParam('The fake supports inline price_data only, not price ids.', 'parameter_unknown', `${name}[price]`);
    const priceData = readObject(entry, 'price_data', `${name}[price_data]`);
    if (!priceData) throw invalidParam(`Missing required param: ${name}[price_data].`, 'parameter_missing', `${name}[price_data]`);
    rejectUnknown(priceData, ['currency', 'unit_amount', 'product_data', 'tax_behavior'], `${name}[price_data]`);
    const product = readObject(priceData, 'product_data', `${name}[price_data][product_data]`);
    if (!product) throw invalidParam(`Missing required param: ${name}[price_data][product_data].`, 'parameter_missing');
    rejectUnknown(product, ['name', 'description', 'metadata', 'images'], `${name}[price_data][product_data]`);
    return {
      name: requireString(product, 'name', `${name}[price_data][product_data][name]`),
      currency: requireString(priceData, 'currency', `${name}[price_data][currency]`).toLowerCase(),
      unit_amount: requireInt(priceData, 'unit_amount', { min: 0, name: `${name}[price_data][unit_amount]` }),
      quantity: requireInt(entry, 'quantity', { min: 1, name: `${name}[quantity]` }),
    };
  });
  if (new Set(items.map((i) => i.currency)).size > 1) {
    throw invalidParam('All line items must use the same currency.', 'parameter_invalid_string', 'line_items');
  }
  return items;
}

export function getSession(ctx: FakeContext, id = ctx.req.params['id'] as string): CheckoutSession {
  const session = ctx.state.checkoutSessions.get(id);
  if (!session) throw noSuch('checkout.session', id, 'session');
  return session;
}

export function retrieveCheckoutSession(ctx: FakeContext): CheckoutSession {
  rejectUnknown(ctx.req.body, ['expand']);
  return getSession(ctx);
}

export async function expireCheckoutSession(ctx: FakeContext): Promise<CheckoutSession> {
  rejectUnknown(ctx.req.body, ['expand']);
  const session = getSession(ctx);
  if (session.status !== 'open') throw invalidState('Only Checkout Sessions with a status in ["open"] can be expired.');
  session.status = 'expired';
  session.url = null;
  await deliverEvent(ctx, recordEvent(ctx, 'checkout.session.expired', session));
  return session;
}

/**
 * The customer pays on the hosted page: a PaymentIntent for amount_total is created and
 * confirmed with `paymentMethod`; on approval the session completes and
 * `checkout.session.completed` is recorded (the caller delivers it). A decline leaves the
 * session open, as the hosted page would, and throws the 402.
 */
export function completeCheckoutSession(ctx: FakeContext, session: CheckoutSession, paymentMethod: string): { intent: PaymentIntent; event: StripeEvent } {
  if (session.status !== 'open') {
    throw new FakeStripeError({
      status: 400,
      type: 'invalid_request_error',
      message: `This Checkout Session is ${session.status}; only open sessions can be paid.`,
    });
  }
  const data = ctx.state.checkoutIntentData.get(session.id);
  const id = newId('pi');
  const intent: PaymentIntent = {
    id,
    object: 'payment_intent',
    amount: session.amount_total,
    amount_capturable: 0,
    amount_received: 0,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: data?.captureMethod ?? 'automatic_async',
    client_secret: `${id}_secret_${newId('x').slice(2)}`,
    confirmation_method: 'automatic',
    created: nowSec(ctx),
    currency: session.currency,
    description: data?.description ?? null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: { ...data?.metadata },
    payment_method: null,
    payment_method_types: ['card'],
    status: 'requires_confirmation',
  };
  ctx.state.paymentIntents.set(id, intent);
  authorize(ctx, intent, { kind: 'payment_method', id: paymentMethod });
  session.status = 'complete';
  session.payment_status = intent.status === 'succeeded' ? 'paid' : 'unpaid';
  session.payment_intent = intent.id;
  session.url = null;
  return { intent, event: recordEvent(ctx, 'checkout.session.completed', session, false) };
}
