import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Billing } from './billing.ts';
import { createChallenge, type Challenge } from './mpp/challenge.ts';
import { buildEvmRequest } from './mpp/evm-method.ts';
import { buildStripeRequest, canOfferStripe } from './mpp/stripe-method.ts';
import type { Charge } from './types.ts';
import { buildPaymentRequired, type BuildPaymentRequiredInput, issueX402Binding, type X402BindingScope } from './x402/x402-v2.ts';

/** What a paid call offers: MPP challenges (one per method) and, on the chain rail, x402. */
export interface Offer {
  challenges: Challenge[];
  /** The request each challenge carries, by method: what a credential must echo. */
  requests: Record<string, Record<string, unknown>>;
  /** `scope`: what its challenge is bound to (without the secret, which stays in Billing). */
  x402: { input: BuildPaymentRequiredInput; header: string; scope: Omit<X402BindingScope, 'secret'> } | null;
}

/**
 * Builds the offer for a charge. Requests are deterministic in (charge, config), so the one
 * rebuilt when a credential arrives is what its echo is compared with. The card method is
 * offered only where a processor accepts the amount (USD 0.50 minimum) and a network profile
 * is configured; hosted checkout covers cards otherwise. A hold (`charge.hold`) is card only: it
 * offers the card method alone, never the chain or x402. `issuedTo` (the caller's owner tag) and
 * the charge's `requestBinding` are bound into each challenge's `opaque`, and into the x402
 * offer's challenge (`extensions["cutroom-challenge"]`, with the resource and the job).
 */
export function buildOffer(billing: Billing, charge: Charge, resourceUrl: string, now: Date, issuedTo: string): Offer {
  const expires = new Date(now.getTime() + billing.challengeTtlSeconds * 1000);
  const externalId = charge.jobId ?? undefined;
  const requests: Offer['requests'] = {};
  // A hold is an authorization on a card; the chain rail can only take money outright.
  const chainAmount = charge.hold ? undefined : charge.amounts.chain;
  if (billing.chain && chainAmount !== undefined) {
    requests.evm = buildEvmRequest({
      amount: chainAmount,
      token: billing.chain.asset,
      recipient: billing.chain.recipient,
      chainId: billing.chain.chainId,
      description: charge.description,
      externalId,
    }) as unknown as Record<string, unknown>;
  }
  const cardAmount = charge.amounts.card;
  if (billing.card && billing.cardNetworkId && cardAmount !== undefined && canOfferStripe(cardAmount, RAIL_CURRENCY.card)) {
    requests.stripe = buildStripeRequest({
      amount: cardAmount,
      currency: RAIL_CURRENCY.card,
      networkId: billing.cardNetworkId,
      description: charge.description,
      externalId,
    }) as unknown as Record<string, unknown>;
  }
  const challenges = Object.entries(requests).map(([method, request]) =>
    createChallenge({
      secret: billing.challengeSecret,
      realm: billing.realm,
      method,
      intent: 'charge',
      request,
      expires,
      description: charge.description,
      meta: { owner: issuedTo, ...(charge.requestBinding !== undefined && { request: charge.requestBinding }) },
    }),
  );
  let x402: Offer['x402'] = null;
  if (billing.chain && chainAmount !== undefined) {
    const scope: Omit<X402BindingScope, 'secret'> = {
      realm: billing.realm,
      resource: resourceUrl,
      externalId,
      amount: chainAmount,
      asset: billing.chain.asset,
      payTo: billing.chain.recipient,
      network: billing.chain.network,
    };
    const input: BuildPaymentRequiredInput = {
      resource: resourceUrl,
      description: charge.description,
      amount: chainAmount,
      asset: billing.chain.asset,
      payTo: billing.chain.recipient,
      network: billing.chain.network,
      maxTimeoutSeconds: billing.challengeTtlSeconds,
      extra: billing.chain.domain,
      binding: issueX402Binding({ ...scope, secret: billing.challengeSecret }, expires, issuedTo, charge.requestBinding),
    };
    x402 = { input, header: buildPaymentRequired(input), scope };
  }
  return { challenges, requests, x402 };
}
