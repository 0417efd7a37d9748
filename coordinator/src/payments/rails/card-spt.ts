// Shared Payment Token payments (the MPP `stripe` method) and what follows them: a charge
// confirmed at once, or a hold (manual capture) whose delivered part is captured later and
// whose rest is released; refunds after capture, cancellation before it.
import type Stripe from 'stripe';
import { AppError } from '../../lib/app-error.ts';
import { PaymentProblem } from '../types.ts';
import { callProcessor } from './card-errors.ts';

export interface SptPaymentInput {
  /** the Shared Payment Token from the credential; never logged or echoed */
  spt: string;
  amountCents: number;
  currency: string;
  /** derived from the challenge id, so a replayed credential cannot pay twice */
  idempotencyKey: string;
  metadata: Record<string, string>;
}

export interface SptPayments {
  /** Creates and confirms a PaymentIntent from a Shared Payment Token. */
  chargeSpt(input: SptPaymentInput): Promise<{ paymentIntentId: string }>;
  /** Holds: authorize a worst case now, capture what was delivered later, release the rest. */
  authorizeHold(input: SptPaymentInput): Promise<{ paymentIntentId: string; amountCapturable: number }>;
  /** Captures `amountCents` of a hold (the rest is released); 0 releases the whole hold. */
  capture(paymentIntentId: string, amountCents: number, idempotencyKey: string): Promise<{ amountReceived: number }>;
  /** Cancels a hold; a no-op when it is already canceled. */
  release(paymentIntentId: string, idempotencyKey: string): Promise<void>;
  /** Refund after capture (amount optional = all that is left); cancels instead when the PI was never captured. */
  refund(paymentIntentId: string, idempotencyKey: string, amountCents?: number): Promise<{ id: string; kind: 'refund' | 'cancel' }>;
  /** Where a PaymentIntent stands (a hosted checkout with manual capture ends authorized: `requires_capture`). */
  getPaymentIntent(paymentIntentId: string): Promise<PaymentIntentView>;
}

export interface PaymentIntentView {
  id: string;
  status: string;
  captureMethod: string;
  amountCapturable: number;
  currency: string;
}

// Not yet in the stripe-node types: SPTs are a preview feature.
type SptCreateParams = Stripe.PaymentIntentCreateParams & { shared_payment_granted_token: string };

const isWholeCents = (n: number, min: number): boolean => Number.isSafeInteger(n) && n >= min;

export function createSptPayments(stripe: Stripe, opts: { sptApiVersion: string }): SptPayments {
  async function confirmWithSpt(input: SptPaymentInput, captureMethod: 'automatic' | 'manual'): Promise<Stripe.PaymentIntent> {
    if (!isWholeCents(input.amountCents, 1)) throw new AppError('invalid_request', 'A card payment needs a positive whole amount in cents.');
    const currency = input.currency.toLowerCase();
    const params: SptCreateParams = {
      amount: input.amountCents,
      currency,
      capture_method: captureMethod,
      confirm: true,
      // An agent cannot follow a redirect: only methods that settle without one.
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      metadata: input.metadata,
      shared_payment_granted_token: input.spt,
    };
    const op = captureMethod === 'manual' ? 'hold' : 'charge';
    const pi = await callProcessor(op, () => stripe.paymentIntents.create(params, { idempotencyKey: input.idempotencyKey, apiVersion: opts.sptApiVersion }));
    if (pi.status === 'requires_action') {
      throw new PaymentProblem('verification-failed', 'The card asks for customer authentication, which a machine payment cannot complete.');
    }
    const expected = captureMethod === 'manual' ? 'requires_capture' : 'succeeded';
    if (pi.status !== expected) throw new Error(`PaymentIntent ${pi.id} is ${pi.status} after confirmation, expected ${expected}.`);
    const settled = captureMethod === 'manual' ? pi.amount_capturable : pi.amount_received;
    if (settled !== input.amountCents || pi.currency !== currency) {
      throw new PaymentProblem(
        'payment-insufficient',
        `The card processor ${captureMethod === 'manual' ? 'authorized' : 'settled'} ${settled} ${pi.currency}, not ${input.amountCents} ${currency}.`,
        { status: 402 },
      );
    }
    return pi;
  }

  const retrieve = (id: string, op: 'capture' | 'release' | 'refund' | 'lookup') => callProcessor(op, () => stripe.paymentIntents.retrieve(id));
  const isConflict = (err: unknown): boolean => err instanceof AppError && err.code === 'conflict';

  async function release(paymentIntentId: string, idempotencyKey: string): Promise<void> {
    try {
      await callProcessor('release', () => stripe.paymentIntents.cancel(paymentIntentId, { cancellation_reason: 'abandoned' }, { idempotencyKey }));
    } catch (err) {
      if (!isConflict(err)) throw err;
      const pi = await retrieve(paymentIntentId, 'release');
      if (pi.status === 'canceled') return; // released earlier (another key, or a crash after the call)
      throw new AppError('conflict', `PaymentIntent ${paymentIntentId} is ${pi.status}: a captured payment is refunded, not released.`, { cause: err });
    }
  }

  return {
    async chargeSpt(input) {
      const pi = await confirmWithSpt(input, 'automatic');
      return { paymentIntentId: pi.id };
    },

    async authorizeHold(input) {
      const pi = await confirmWithSpt(input, 'manual');
      return { paymentIntentId: pi.id, amountCapturable: pi.amount_capturable };
    },

    async capture(paymentIntentId, amountCents, idempotencyKey) {
      if (!isWholeCents(amountCents, 0)) throw new AppError('invalid_request', 'A capture needs a whole, non-negative amount in cents.');
      // Stripe refuses amount_to_capture 0; nothing delivered means the hold is released.
      if (amountCents === 0) {
        await release(paymentIntentId, idempotencyKey);
        return { amountReceived: 0 };
      }
      try {
        const pi = await callProcessor('capture', () => stripe.paymentIntents.capture(paymentIntentId, { amount_to_capture: amountCents }, { idempotencyKey }));
        return { amountReceived: pi.amount_received };
      } catch (err) {
        if (!isConflict(err)) throw err;
        // Captured already under another key: report what was captured rather than fail.
        const pi = await retrieve(paymentIntentId, 'capture');
        if (pi.status === 'succeeded') return { amountReceived: pi.amount_received };
        throw err;
      }
    },

    release,

    async getPaymentIntent(id) {
      const pi = await retrieve(id, 'lookup');
      return { id: pi.id, status: pi.status, captureMethod: pi.capture_method, amountCapturable: pi.amount_capturable, currency: pi.currency };
    },

    async refund(paymentIntentId, idempotencyKey, amountCents) {
      if (amountCents !== undefined && !isWholeCents(amountCents, 1)) {
        throw new AppError('invalid_request', 'A refund needs a positive whole amount in cents.');
      }
      const pi = await retrieve(paymentIntentId, 'refund');
      if (pi.status === 'succeeded') {
        const refund = await callProcessor('refund', () =>
          stripe.refunds.create({ payment_intent: paymentIntentId, ...(amountCents !== undefined && { amount: amountCents }) }, { idempotencyKey }),
        );
        return { id: refund.id, kind: 'refund' };
      }
      // Never captured: nothing to give back, the authorization is released instead (whole).
      if (pi.status !== 'canceled') await release(paymentIntentId, idempotencyKey);
      return { id: pi.id, kind: 'cancel' };
    },
  };
}
