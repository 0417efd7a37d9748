/**
 * The `stripe` MPP method, `charge` intent (Shared Payment Tokens), as mppx 0.11.0 speaks it
 * (mppx/stripe: Methods.ts, client/Charge.ts, server/Charge.ts).
 *
 * Request, exactly mppx `stripe.charge`'s request output:
 *   { amount: "<smallest currency unit, e.g. cents>", currency: "usd", description?,
 *     externalId?, recipient?,
 *     methodDetails: { networkId: "<Stripe business network profile id>",
 *                      paymentMethodTypes: ["card"], metadata?: {<string>: <string>} } }
 * mppx's client requires `methodDetails.networkId` (it hands it to the wallet's `createToken`
 * with amount, currency, expiresAt = floor(challenge.expires) and metadata) and refuses
 * `metadata.externalId` (reserved). No publishable key travels in the request.
 *
 * Payload: `{ spt: "spt_…", externalId? }`; the client echoes `request.externalId` as
 * `payload.externalId`, and mppx's server refuses a mismatch (we do the same in
 * {@link checkStripeCredential}).
 */
import type { PaymentProblem } from '../types.ts';
import { paymentProblem } from './problem.ts';

export const STRIPE_METHOD = 'stripe';

/**
 * Stripe's minimum charge in USD cents. mppx's server does not offer a `stripe` challenge
 * below the currency's minimum (`canOffer`); neither should we.
 */
export const STRIPE_MIN_AMOUNT_USD_CENTS = 50n;

export interface StripeChargeRequest {
  amount: string;
  currency: string;
  description?: string;
  externalId?: string;
  recipient?: string;
  methodDetails: {
    networkId: string;
    paymentMethodTypes: string[];
    metadata?: Record<string, string>;
  };
}

export interface BuildStripeRequestInput {
  /** Smallest currency unit (cents). */
  amount: bigint;
  /** @default 'usd' */
  currency?: string;
  /** Stripe business network profile id the wallet mints the SPT for. */
  networkId: string;
  /** @default ['card'] */
  paymentMethodTypes?: string[];
  description?: string;
  externalId?: string;
  metadata?: Record<string, string>;
}

export interface StripePayload {
  spt: string;
  externalId?: string;
}

/** The `request` of a `stripe`/`charge` challenge, identical to mppx `stripe.charge`'s output. */
export function buildStripeRequest(input: BuildStripeRequestInput): StripeChargeRequest {
  if (input.amount <= 0n) throw new Error('buildStripeRequest: amount must be positive');
  if (!input.networkId) throw new Error('buildStripeRequest: networkId is required (mppx clients refuse challenges without it)');
  if (input.metadata && 'externalId' in input.metadata) throw new Error('buildStripeRequest: metadata.externalId is reserved');
  const paymentMethodTypes = input.paymentMethodTypes ?? ['card'];
  if (paymentMethodTypes.length === 0) throw new Error('buildStripeRequest: paymentMethodTypes must not be empty');
  return {
    amount: input.amount.toString(),
    currency: (input.currency ?? 'usd').toLowerCase(),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.externalId !== undefined && { externalId: input.externalId }),
    methodDetails: {
      networkId: input.networkId,
      paymentMethodTypes,
      ...(input.metadata !== undefined && { metadata: input.metadata }),
    },
  };
}

/** True when Stripe can charge the amount (mppx's `canOffer` rule for usd). */
export function canOfferStripe(amountCents: bigint, currency = 'usd'): boolean {
  return currency.toLowerCase() !== 'usd' || amountCents >= STRIPE_MIN_AMOUNT_USD_CENTS;
}

/** Validates a decoded (HMAC-verified) `stripe` request. Throws `invalid-challenge`. */
export function parseStripeRequest(request: Record<string, unknown>, challengeId?: string): StripeChargeRequest {
  const bad = () => paymentProblem('invalid-challenge', 'challenge request is not a stripe charge request', { challengeId });
  const { amount, currency, description, externalId, recipient } = request;
  const md = request.methodDetails as Record<string, unknown> | undefined;
  if (typeof amount !== 'string' || !/^\d+$/.test(amount) || typeof currency !== 'string') throw bad();
  if (typeof md !== 'object' || md === null || typeof md.networkId !== 'string' || !Array.isArray(md.paymentMethodTypes)) throw bad();
  if (!md.paymentMethodTypes.every((t) => typeof t === 'string')) throw bad();
  for (const v of [description, externalId, recipient]) if (v !== undefined && typeof v !== 'string') throw bad();
  const metadata = md.metadata;
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || !Object.values(metadata).every((v) => typeof v === 'string')))
    throw bad();
  return {
    amount,
    currency,
    ...(description !== undefined && { description: description as string }),
    ...(externalId !== undefined && { externalId: externalId as string }),
    ...(recipient !== undefined && { recipient: recipient as string }),
    methodDetails: {
      networkId: md.networkId,
      paymentMethodTypes: md.paymentMethodTypes as string[],
      ...(metadata !== undefined && { metadata: metadata as Record<string, string> }),
    },
  };
}

const MAX_SPT_LENGTH = 512;

/** Validates a `stripe` credential payload `{spt, externalId?}`. Throws `malformed-credential`. */
export function parseStripePayload(payload: unknown): StripePayload {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformed('payload must be an object');
  const { spt, externalId } = payload as Record<string, unknown>;
  // mppx only requires a string; we also refuse empty, oversized or non-printable tokens.
  if (typeof spt !== 'string' || spt.length === 0 || spt.length > MAX_SPT_LENGTH || !/^[\x21-\x7e]+$/.test(spt)) {
    throw malformed('spt must be a non-empty token string');
  }
  if (externalId !== undefined && typeof externalId !== 'string') throw malformed('externalId must be a string');
  return { spt, ...(externalId !== undefined && { externalId }) };
}

/** mppx's server rule: when the request names an `externalId`, the payload must echo it. */
export function checkStripeCredential(input: { request: StripeChargeRequest; payload: StripePayload; challengeId?: string }): void {
  const { request, payload } = input;
  if (request.externalId !== undefined && payload.externalId !== request.externalId) {
    throw paymentProblem('invalid-challenge', 'credential externalId does not match this route request', { challengeId: input.challengeId });
  }
}

/**
 * Idempotency key for the PaymentIntent created with the SPT: mppx uses
 * `mpp_<challengeId>_<spt>`; a retry of the same credential therefore replays, not re-charges.
 */
export function stripeIdempotencyKey(challengeId: string, spt: string): string {
  return `mpp_${challengeId}_${spt}`;
}

/** The method's two wire functions under the names the brief uses. */
export const stripeWire = { method: STRIPE_METHOD, buildRequest: buildStripeRequest, parsePayload: parseStripePayload } as const;

function malformed(detail: string): PaymentProblem {
  return paymentProblem('malformed-credential', `Credential is malformed: ${detail}.`);
}
