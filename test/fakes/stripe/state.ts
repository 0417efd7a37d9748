// Everything the fake knows, in memory. Stored objects have Stripe's wire shape (snake_case) so
// handlers answer with a copy of them; bookkeeping Stripe keeps server-side but never shows
// (which token backs which PaymentIntent, line items of a session) sits beside them.
import { randomBytes } from 'node:crypto';

export interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  amount_subtotal: number;
  amount_total: number;
  cancel_url: string | null;
  client_reference_id: string | null;
  created: number;
  currency: string;
  customer_email: string | null;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: 'payment';
  payment_intent: string | null;
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  status: 'open' | 'complete' | 'expired';
  success_url: string | null;
  ui_mode: 'hosted';
  url: string | null;
}

/** A session's `payment_intent_data`, applied to the PaymentIntent created when it is paid. */
export interface CheckoutIntentData {
  captureMethod: 'automatic' | 'automatic_async' | 'manual';
  description: string | null;
  metadata: Record<string, string>;
}

export interface LineItem {
  name: string;
  currency: string;
  unit_amount: number;
  quantity: number;
}

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: 'automatic' | 'automatic_async' | 'manual';
  client_secret: string;
  confirmation_method: 'automatic' | 'manual';
  created: number;
  currency: string;
  description: string | null;
  last_payment_error: Record<string, unknown> | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Record<string, string>;
  payment_method: string | null;
  payment_method_types: string[];
  status: PaymentIntentStatus;
}

export interface Charge {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  captured: boolean;
  created: number;
  currency: string;
  failure_code: string | null;
  failure_message: string | null;
  livemode: false;
  metadata: Record<string, string>;
  paid: boolean;
  payment_intent: string;
  payment_method: string | null;
  refunded: boolean;
  status: 'succeeded' | 'failed';
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  charge: string;
  created: number;
  currency: string;
  metadata: Record<string, string>;
  payment_intent: string;
  reason: string | null;
  status: 'succeeded';
}

/** A Shared Payment Token granted to this account (the fake's view of an agent's grant). */
export interface SharedPaymentToken {
  id: string;
  created: number;
  currency: string;
  /** null: no amount cap (only the fake's control route allows that) */
  maxAmount: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** Test PaymentMethod behind the token, e.g. pm_card_visa or pm_card_chargeDeclined. */
  paymentMethod: string;
  /** Authorized or captured through it; released holds give their share back. */
  amountUsed: number;
}

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
  /** ['*'] for all */
  enabled_events: string[];
}

export interface Delivery {
  event_id: string;
  endpoint_id: string;
  url: string;
  /** HTTP status of the receiver, null when it could not be reached */
  status: number | null;
  ok: boolean;
  error: string | null;
  signature: string;
  at: number;
}

export interface Fault {
  /** HTTP status to answer with; ignored when `drop` is set */
  status: number;
  /** destroy the socket instead of answering (a network failure) */
  drop: boolean;
  remaining: number;
  pathPrefix: string;
  method: string | null;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  idempotency_key: string | null;
  replayed: boolean;
}

export interface FakeState {
  checkoutSessions: Map<string, CheckoutSession>;
  lineItems: Map<string, LineItem[]>;
  checkoutIntentData: Map<string, CheckoutIntentData>;
  paymentIntents: Map<string, PaymentIntent>;
  /** PaymentIntent id → the token backing it, when it was created from a Shared Payment Token */
  intentTokens: Map<string, string>;
  charges: Map<string, Charge>;
  refunds: Map<string, Refund>;
  sharedPaymentTokens: Map<string, SharedPaymentToken>;
  /** oldest first */
  events: StripeEvent[];
  webhookEndpoints: WebhookEndpoint[];
  deliveries: Delivery[];
  faults: Fault[];
  requests: RequestLogEntry[];
}

export function createState(): FakeState {
  return {
    checkoutSessions: new Map(),
    lineItems: new Map(),
    checkoutIntentData: new Map(),
    paymentIntents: new Map(),
    intentTokens: new Map(),
    charges: new Map(),
    refunds: new Map(),
    sharedPaymentTokens: new Map(),
    events: [],
    webhookEndpoints: [],
    deliveries: [],
    faults: [],
    requests: [],
  };
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Stripe-looking ids: `pi_3Q…` (24 base62 characters); checkout sessions are `cs_test_…`. */
export function newId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${out}`;
}
