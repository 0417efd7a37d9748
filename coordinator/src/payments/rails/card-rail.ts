// The card rail: hosted Checkout Sessions for browsers, Shared Payment Tokens for the MPP
// `stripe` method (charge at once, or hold then capture what was delivered), refunds, and
// webhook authentication. Every money-moving call carries the caller's idempotency key, so a
// retry after a timeout or crash settles at most once (the processor replays the first result).
import Stripe from 'stripe';
import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import { AppError } from '../../lib/app-error.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { callProcessor } from './card-errors.ts';
import { verifyStripeWebhook } from './card-webhook.ts';
import { createSptPayments, type SptPayments } from './card-spt.ts';

export interface CardRailConfig {
  secretKey: string;
  webhookSecret: string;
  /** for the in-repo fake or a proxy @default Stripe's API (api.stripe.com:443, https) */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
  /** where Checkout sends the payer after paying; may contain `{CHECKOUT_SESSION_ID}` */
  successUrl: string;
  cancelUrl: string;
  /** retries of network failures, 409s and 5xx by the stripe client (safe: every write is keyed) @default 2 */
  maxNetworkRetries?: number;
  /** per-request timeout in ms @default 20000 */
  timeoutMs?: number;
  /** how old a webhook signature may be, in seconds @default 300 (Stripe's recommendation) */
  webhookToleranceSec?: number;
  /** time source for the webhook age check @default systemClock */
  clock?: Clock;
  /**
   * API version sent with Shared Payment Token calls: SPTs are a preview feature that needs a
   * `.preview` version. @default '2026-07-29.preview' (what mppx 0.11 sends)
   */
  sptApiVersion?: string;
}

export interface CheckoutView {
  id: string;
  url: string | null;
  status: string;
  paymentStatus: string;
  paymentIntentId: string | null;
  amountTotal: number | null;
  jobId: string | null;
}

export interface CardRail extends SptPayments {
  /**
   * A hosted Checkout Session for one job. `amountCents` is the unit price: the total is amountCents × quantity (default 1).
   * `captureMethod: 'manual'`: the payment is only authorized (a hold; the session completes `unpaid`, its PaymentIntent `requires_capture`).
   */
  createCheckout(input: {
    jobId: string;
    amountCents: number;
    quantity?: number;
    description: string;
    idempotencyKey: string;
    captureMethod?: 'manual';
  }): Promise<{ id: string; url: string }>;
  getCheckout(id: string): Promise<CheckoutView>;
  /** Verifies the Stripe-Signature over the RAW body and returns the event; PaymentProblem('verification-failed') on a bad or forged signature or a stale timestamp. */
  verifyWebhook(rawBody: Buffer | string, signature: string | undefined): Stripe.Event;
}

export function createCardRail(cfg: CardRailConfig): CardRail {
  const stripe = new Stripe(cfg.secretKey, {
    ...(cfg.api && { host: cfg.api.host, port: cfg.api.port, protocol: cfg.api.protocol }),
    maxNetworkRetries: cfg.maxNetworkRetries ?? 2,
    timeout: cfg.timeoutMs ?? 20_000,
    telemetry: false,
    appInfo: { name: 'cutroom' },
  });
  const clock = cfg.clock ?? systemClock;

  return {
    ...createSptPayments(stripe, { sptApiVersion: cfg.sptApiVersion ?? '2026-07-29.preview' }),

    async createCheckout(input) {
      const quantity = input.quantity ?? 1;
      if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || !Number.isSafeInteger(quantity) || quantity < 1) {
        throw new AppError('invalid_request', 'A checkout needs a positive whole amount in cents and a quantity of at least 1.');
      }
      const session = await callProcessor('checkout', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [{ quantity, price_data: { currency: RAIL_CURRENCY.card, unit_amount: input.amountCents, product_data: { name: input.description } } }],
            // On the session for the webhook, and on the PaymentIntent for refunds and disputes.
            metadata: { job_id: input.jobId },
            payment_intent_data: { metadata: { job_id: input.jobId }, ...(input.captureMethod && { capture_method: input.captureMethod }) },
            client_reference_id: input.jobId,
            success_url: cfg.successUrl,
            cancel_url: cfg.cancelUrl,
          },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      if (!session.url) throw new Error(`Checkout Session ${session.id} came back without a hosted URL (status ${session.status}).`);
      return { id: session.id, url: session.url };
    },

    async getCheckout(id) {
      const s = await callProcessor('lookup', () => stripe.checkout.sessions.retrieve(id));
      const pi = s.payment_intent;
      return {
        id: s.id,
        url: s.url,
        status: s.status ?? 'unknown',
        paymentStatus: s.payment_status,
        paymentIntentId: typeof pi === 'string' ? pi : (pi?.id ?? null),
        amountTotal: s.amount_total,
        jobId: s.metadata?.['job_id'] ?? s.client_reference_id ?? null,
      };
    },

    verifyWebhook(rawBody, signature) {
      return verifyStripeWebhook(stripe.webhooks, rawBody, signature, {
        secret: cfg.webhookSecret,
        toleranceSec: cfg.webhookToleranceSec ?? 300,
        clock,
      });
    },
  };
}
