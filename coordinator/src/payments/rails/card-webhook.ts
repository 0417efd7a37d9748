// Webhook authentication. Stripe signs `<t>.<raw body>` with the endpoint secret; the check
// must run on the bytes as received (a re-serialized JSON body never matches), and a signature
// older than the tolerance is refused so a captured delivery cannot be replayed later.
import type Stripe from 'stripe';
import type { Clock } from '../../lib/clock.ts';
import { PaymentProblem } from '../types.ts';

export interface WebhookCheck {
  secret: string;
  /** seconds a signature stays acceptable */
  toleranceSec: number;
  clock: Clock;
}

export function verifyStripeWebhook(webhooks: Stripe['webhooks'], rawBody: Buffer | string, signature: string | undefined, check: WebhookCheck): Stripe.Event {
  if (!signature) throw new PaymentProblem('verification-failed', 'The webhook has no Stripe-Signature header.');
  try {
    // tolerance 0 would disable the age check in the stripe client: never pass it through.
    const tolerance = Math.max(1, check.toleranceSec);
    return webhooks.constructEvent(rawBody, signature, check.secret, tolerance, undefined, check.clock.now().getTime());
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    const reason = /tolerance/i.test(message)
      ? 'its timestamp is outside the tolerance window'
      : /signature|timestamp/i.test(message)
        ? 'the signature does not match the body'
        : 'the body is not a valid event';
    throw new PaymentProblem('verification-failed', `Webhook rejected: ${reason}.`, { cause: err });
  }
}
