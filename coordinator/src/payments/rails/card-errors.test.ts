import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error.ts';
import { PaymentProblem } from '../types.ts';
import { toCardRailError } from './card-errors.ts';

const E = Stripe.errors;
const invalid = (code: string, param?: string, message = 'refused') =>
  new E.StripeInvalidRequestError({ type: 'invalid_request_error', message, code, ...(param && { param }), statusCode: 400 });

describe('toCardRailError', () => {
  it('maps a decline to verification-failed with the decline codes and without the processor message', () => {
    const err = toCardRailError(
      new E.StripeCardError({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'spt_secret declined', statusCode: 402 }),
      'charge',
    );
    expect(err).toBeInstanceOf(PaymentProblem);
    expect(err).toMatchObject({ type: 'verification-failed', message: 'The card processor declined the payment (card_declined: insufficient_funds).' });
  });

  it('maps an unknown token to verification-failed without echoing it', () => {
    const err = toCardRailError(invalid('resource_missing', 'shared_payment_granted_token', "No such token: 'spt_abc'"), 'hold');
    expect(err).toMatchObject({ type: 'verification-failed' });
    expect(err.message).not.toContain('spt_abc');
  });

  it('maps a reused challenge key to verification-failed on payments and to a conflict elsewhere', () => {
    const idem = () => new E.StripeIdempotencyError({ type: 'idempotency_error', message: 'Keys for idempotent requests…', statusCode: 400 });
    expect(toCardRailError(idem(), 'charge')).toMatchObject({ type: 'verification-failed' });
    expect(toCardRailError(idem(), 'refund')).toMatchObject({ code: 'conflict' });
  });

  it('maps amounts: capture beyond the hold is payment-insufficient (402), refund beyond the rest a conflict', () => {
    expect(toCardRailError(invalid('amount_too_large', 'amount_to_capture'), 'capture')).toMatchObject({ type: 'payment-insufficient', status: 402 });
    expect(toCardRailError(invalid('amount_too_large', 'amount'), 'refund')).toMatchObject({ code: 'conflict' });
    expect(toCardRailError(invalid('charge_already_refunded'), 'refund')).toMatchObject({ code: 'conflict' });
  });

  it('maps a missing object to not_found and a state conflict to conflict', () => {
    expect(toCardRailError(invalid('resource_missing', 'session'), 'lookup')).toMatchObject({ code: 'not_found' });
    expect(toCardRailError(invalid('payment_intent_unexpected_state'), 'release')).toBeInstanceOf(AppError);
  });

  it('turns outages, auth failures and our own malformed requests into plain Errors', () => {
    const cases = [
      new E.StripeAPIError({ type: 'api_error', message: 'boom', statusCode: 503 }),
      new E.StripeConnectionError({ type: 'api_error', message: 'ECONNREFUSED' }),
      new E.StripeAuthenticationError({ type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****abcd', statusCode: 401 }),
      new E.StripeRateLimitError({ type: 'invalid_request_error', message: 'slow down', statusCode: 429 }),
      invalid('parameter_unknown', 'colour'),
    ];
    for (const source of cases) {
      const err = toCardRailError(source, 'charge');
      expect(err).not.toBeInstanceOf(PaymentProblem);
      expect(err).not.toBeInstanceOf(AppError);
      expect(err.cause).toBe(source);
      expect(err.message).not.toContain('sk_test');
    }
  });

  it('passes non-Stripe errors through', () => {
    const boom = new TypeError('bug');
    expect(toCardRailError(boom, 'charge')).toBe(boom);
  });
});
