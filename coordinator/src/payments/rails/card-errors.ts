// How failures of the card processor reach our taxonomy. Three outcomes:
// - the payer's side is at fault (decline, unknown or used-up token, credential reused for a
//   different payment): PaymentProblem, answered as problem+json;
// - our own request conflicts with the payment's state (refund beyond what is left, capture
//   after cancel): AppError, which the transports already map;
// - the processor is unreachable, slow, overloaded or refuses our key: a plain Error, which
//   the caller answers with 503 and may retry.
// Details never carry the token, the API key or processor messages that echo either.
import Stripe from 'stripe';
import { AppError } from '../../lib/app-error.ts';
import { PaymentProblem } from '../types.ts';

export type CardOperation = 'checkout' | 'lookup' | 'charge' | 'hold' | 'capture' | 'release' | 'refund';

const E = Stripe.errors;

// Parameters through which the payer's credential reaches the processor.
const CREDENTIAL_PARAMS = new Set(['shared_payment_granted_token', 'payment_method', 'payment_method_data']);

export function toCardRailError(err: unknown, op: CardOperation): Error {
  if (!(err instanceof E.StripeError)) return err instanceof Error ? err : new Error(String(err));
  const isPayment = op === 'charge' || op === 'hold';

  if (err instanceof E.StripeCardError) {
    const reason = [err.code, err.decline_code].filter(Boolean).join(': ');
    return new PaymentProblem('verification-failed', `The card processor declined the payment${reason ? ` (${reason})` : ''}.`, { cause: err });
  }
  if (err instanceof E.StripeIdempotencyError) {
    // The key derives from the challenge id: the same challenge came back with other details.
    return isPayment
      ? new PaymentProblem('verification-failed', 'This payment challenge was already used with different payment details.', { cause: err })
      : new AppError('conflict', `The ${op} was already requested with different details under the same idempotency key.`, { cause: err });
  }
  if (err instanceof E.StripeInvalidRequestError) return fromInvalidRequest(err, op, isPayment);
  return unavailable(err, op);
}

function fromInvalidRequest(err: Stripe.errors.StripeInvalidRequestError, op: CardOperation, isPayment: boolean): Error {
  const code = err.code ?? '';
  if (isPayment && code === 'resource_missing' && CREDENTIAL_PARAMS.has(err.param ?? '')) {
    return new PaymentProblem('verification-failed', 'The shared payment token is not known to the card processor.', { cause: err });
  }
  if (code === 'resource_missing') return new AppError('not_found', `The card processor has no such object for this ${op}.`, { cause: err });
  if (op === 'capture' && code === 'amount_too_large') {
    return new PaymentProblem('payment-insufficient', 'The amount to capture exceeds what the card hold authorized.', { status: 402, cause: err });
  }
  if (isPayment && code === 'amount_too_small') {
    return new PaymentProblem('payment-insufficient', 'The amount is below the card processor minimum charge.', { status: 402, cause: err });
  }
  if (code === 'amount_too_large' || code === 'charge_already_refunded') {
    return new AppError('conflict', 'The refund exceeds the amount not yet refunded.', { cause: err });
  }
  if (code === 'payment_intent_unexpected_state' || code === 'charge_not_refundable') {
    // Stripe's message names the PaymentIntent and its status; it carries no credential.
    return new AppError('conflict', `The card payment cannot ${op} in its current state: ${err.message}`, { cause: err });
  }
  // Anything else means we sent a request the processor does not accept: a bug on our side.
  return new Error(
    `The card processor refused the ${op} request (${code || err.rawType || 'invalid_request_error'}${err.param ? `, param ${err.param}` : ''}).`,
    { cause: err },
  );
}

function unavailable(err: Stripe.errors.StripeError, op: CardOperation): Error {
  const status = err.statusCode ? ` (HTTP ${err.statusCode})` : '';
  return new Error(`The card processor is unavailable for this ${op}: ${err.type}${status}.`, { cause: err });
}

/** Runs one processor call and translates its failure. */
export async function callProcessor<T>(op: CardOperation, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toCardRailError(err, op);
  }
}
