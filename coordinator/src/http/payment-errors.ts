import type { FastifyReply } from 'fastify';
import { PaymentRequiredError, PaymentRequiredWithCheckout } from '../service/index.ts';
import { formatWwwAuthenticate } from '../payments/mpp/challenge.ts';
import { PROBLEM_CONTENT_TYPE, problemBody, problemFromError } from '../payments/mpp/problem.ts';
import { PaymentProblem } from '../payments/types.ts';
import { PAYMENT_REQUIRED_HEADER } from '../payments/x402/x402-v2.ts';

/**
 * 402 per draft-httpauth-payment: one `WWW-Authenticate: Payment …` per offered method, the
 * x402 v2 `PAYMENT-REQUIRED` header for the chain rail, `Cache-Control: no-store`, and a
 * problem+json body (`payment-required`, or the reason a presented credential was refused) with,
 * where the 402 offers a hosted checkout (paid creation without a session), its `job_id`,
 * `price_cents`, `checkout_url`, `card_checkout_session_id` and the new `session_id` /
 * `session_token` that own the job. Any other payment problem (`method-unsupported`: 400) carries
 * the spec's `{error}` in its problem+json. Returns false for errors that are not about payment.
 */
export function sendPaymentError(err: unknown, reply: FastifyReply): boolean {
  if (err instanceof PaymentRequiredError) {
    const { offer, problem } = err;
    const challengeId = offer.challenges[0]?.id;
    if (offer.challenges.length) reply.header('WWW-Authenticate', offer.challenges.map(formatWwwAuthenticate));
    if (offer.x402) reply.header(PAYMENT_REQUIRED_HEADER, offer.x402.header);
    const body = {
      ...(problem ? problemFromError(problem, challengeId) : problemBody('payment-required', err.message, { challengeId })),
      ...(err instanceof PaymentRequiredWithCheckout && err.checkout),
    };
    reply.status(402).header('Cache-Control', 'no-store').type(PROBLEM_CONTENT_TYPE).serializer(JSON.stringify).send(body);
    return true;
  }
  if (err instanceof PaymentProblem) {
    reply.status(err.status).header('Cache-Control', 'no-store').type(PROBLEM_CONTENT_TYPE).serializer(JSON.stringify).send(problemFromError(err));
    return true;
  }
  return false;
}
