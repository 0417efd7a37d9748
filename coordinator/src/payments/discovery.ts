import { availableJobTypes, JOB_TYPES, type JobType } from '@cutroom/shared/job-types';
import type { MediaKind } from '@cutroom/shared/media-types';
import { PRICES } from '@cutroom/shared/prices';
import { RAIL_CURRENCY } from '@cutroom/shared/payment-methods';
import type { Billing } from './billing.ts';
import { canOfferStripe, STRIPE_MIN_AMOUNT_USD_CENTS } from './mpp/stripe-method.ts';

const usdc = (units: number | bigint): string => (Number(units) / 1_000_000).toFixed(2);
const usd = (cents: number): string => (cents / 100).toFixed(2);

/** The paid REST operations and what each charges. `null` amount = depends on the job (dynamic). */
export const PAID_OPERATIONS = [
  { method: 'post', path: '/api/v1/jobs', product: 'job' },
  { method: 'get', path: '/api/v1/jobs/{id}/upload-url', product: 'job' },
  { method: 'post', path: '/api/v1/jobs/{id}/complete-upload', product: 'job' },
  { method: 'post', path: '/api/v1/jobs/{id}/process', product: 'job' },
  { method: 'get', path: '/api/test', product: 'smoke_test' },
] as const;

const MCP_ONLY_CHAIN = 'the chain (USDC) rate is offered only through MCP; the REST derivatives route is card only';
const HOLD_UNIT = 'worst-case card hold, charged for what is delivered';
/** The card rail's minimum charge (the processor's; mppx's `canOffer` rule), in cents. */
export const CARD_MIN_CENTS = Number(STRIPE_MIN_AMOUNT_USD_CENTS);
const BELOW_CARD_MIN = `chain only: below the card minimum (${usd(CARD_MIN_CENTS)} USD)`;

/**
 * Every row of the price table, in both rails' base units and for display. A price the card rail
 * cannot charge (below its minimum: the 0.01 smoke test) is not offered on it: `card` is null and
 * the note says why, as the 402 offers no `stripe` challenge and no hosted checkout for it.
 */
export function priceTable() {
  const row = (
    product: string,
    p: { cardCents: number; chainUnits: number | null },
    extra: { media?: 'audio' | 'video'; unit?: string; note?: string } = {},
  ) => {
    const card = canOfferStripe(BigInt(p.cardCents), RAIL_CURRENCY.card);
    return {
      product,
      ...extra,
      ...(!card && { note: extra.note ? `${extra.note}; ${BELOW_CARD_MIN}` : BELOW_CARD_MIN }),
      chain: p.chainUnits == null ? null : { amount: String(p.chainUnits), display: usdc(p.chainUnits), currency: 'USDC' as const, decimals: 6 },
      card: card ? { amount: String(p.cardCents), display: usd(p.cardCents), currency: 'USD' as const, decimals: 2 } : null,
    };
  };
  // Every job type this build sells, from its row in JOB_TYPES (the one place prices are written):
  // a type priced by media gets a row per media it accepts, so none can be left out of the table.
  const jobRows = availableJobTypes().flatMap((type) => {
    const pricing = JOB_TYPES[type].pricing;
    const note = SALE_NOTES[type];
    if (pricing.by === 'media')
      return MEDIA_KINDS.flatMap((media) => (pricing.prices[media] ? [row(type, pricing.prices[media], { media, ...(note && { note }) })] : []));
    return [row(type, pricing.price, { unit: UNITS[pricing.by], ...(note && { note }) })];
  });
  return [...jobRows, row('smoke_test', PRICES.smoke_test)];
}

/** A flat-priced row's unit, by how its type is priced. */
const UNITS = { call: 'per call', item: 'per clip', hold: HOLD_UNIT } as const;
/** How a type is sold, where that narrows its rails (the table's note). */
const SALE_NOTES: Partial<Record<JobType, string>> = {
  // The REST derivatives route takes card only (hosted checkout, quantity N); MCP takes both rails.
  clips_vertical: MCP_ONLY_CHAIN,
  clips_horizontal: MCP_ONLY_CHAIN,
  clips_from_video: 'card only; through MCP',
  clips_youtube: 'card only; through MCP',
};
const MEDIA_KINDS = ['audio', 'video'] as const satisfies readonly MediaKind[];

/** Job operations are priced by job type and media: from the cheapest to the dearest upload job. */
const JOB_RANGE = {
  chain: [PRICES.transcribe.audio.chainUnits!, PRICES.find_clips.video.chainUnits!],
  card: [PRICES.transcribe.audio.cardCents, PRICES.find_clips.video.cardCents],
} as const;

/**
 * `x-payment-info` for one operation, in the shape mppx's discovery validator reads
 * (`offers[]` of {intent, method, currency, amount (null = dynamic)}), plus our summary, protocols and range.
 */
export function paymentInfo(billing: Billing, product: 'job' | 'smoke_test') {
  const chainMin = product === 'job' ? JOB_RANGE.chain[0] : PRICES.smoke_test.chainUnits;
  const cardMin = product === 'job' ? JOB_RANGE.card[0] : PRICES.smoke_test.cardCents;
  const offers: Record<string, unknown>[] = [];
  if (billing.chain)
    offers.push({
      intent: 'charge',
      method: 'evm',
      currency: billing.chain.asset,
      amount: product === 'job' ? null : String(chainMin),
      description: `chain rail: USDC on ${billing.chain.network}, from ${usdc(chainMin)} USDC`,
    });
  // The card rail is offered only for an amount it can charge (not the 0.01 smoke test).
  if (billing.card && canOfferStripe(BigInt(cardMin), RAIL_CURRENCY.card))
    offers.push({
      intent: 'charge',
      method: 'stripe',
      currency: 'usd',
      amount: product === 'job' ? null : String(cardMin),
      description: `card rail: from ${usd(cardMin)} USD (also hosted checkout)`,
    });
  // mppx's schema: either flat fields or `offers`, not both; the range and protocols are our extensions.
  return {
    summary:
      product === 'job'
        ? `dynamic price by job type and media: ${usdc(JOB_RANGE.chain[0])}-${usdc(JOB_RANGE.chain[1])} USDC (chain) or ${usd(JOB_RANGE.card[0])}-${usd(JOB_RANGE.card[1])} USD (card); see /.well-known/mpp.json`
        : `payment smoke test: ${usdc(chainMin)} USDC (chain rail only: below the card minimum of ${usd(CARD_MIN_CENTS)} USD)`,
    protocols: ['mpp', ...(billing.chain ? ['x402'] : [])],
    price:
      product === 'job'
        ? { dynamic: true, min: usdc(JOB_RANGE.chain[0]), max: usdc(JOB_RANGE.chain[1]), currency: 'USDC' }
        : { dynamic: false, amount: usdc(chainMin), currency: 'USDC' },
    offers,
  };
}

/**
 * The PaymentRequired402 body, as JSON Schema for the declared 402 responses; plus, on paid
 * creation without a session (POST /jobs), the hosted checkout offered beside the challenges and
 * the session created to own its job (payments/checkout.ts CheckoutOffer).
 */
export const PAYMENT_REQUIRED_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'number', const: 402 },
    type: { type: 'string', description: 'https://paymentauth.org/problems/<type>' },
    title: { type: 'string' },
    detail: { type: 'string' },
    challengeId: { type: 'string' },
    job_id: { type: 'string', format: 'uuid', description: 'the job the hosted checkout pays (paid creation without a session only)' },
    price_cents: { type: 'integer', description: 'its price on the card rail' },
    checkout_url: { type: 'string', format: 'uri', description: 'hosted card checkout of job_id, offered where the card rail can take the price' },
    card_checkout_session_id: { type: 'string', description: 'paired with checkout_url' },
    session_id: { type: 'string', format: 'uuid', description: 'the session created to own job_id' },
    session_token: {
      type: 'string',
      description: 'the Bearer token of session_id, given only in this answer: after paying at checkout_url, GET /jobs/{job_id}/upload-url with it',
    },
  },
};

/** problem+json of a refused payment method (400): the problem fields plus the spec's `error`. */
const PAYMENT_PROBLEM_400_SCHEMA = {
  type: 'object',
  required: ['status', 'error'],
  properties: {
    error: { type: 'string', description: "the spec's ErrorResponse message (the same text as detail)" },
    status: { type: 'number', const: 400 },
    type: { type: 'string', description: 'https://paymentauth.org/problems/method-unsupported' },
    title: { type: 'string' },
    detail: { type: 'string' },
    challengeId: { type: 'string' },
  },
};

/** Adds `x-payment-info` and a declared 402 to every paid operation of the generated document. */
/** The parts of a generated OpenAPI operation this file writes. */
interface OpenApiOperation {
  'x-payment-info'?: unknown;
  responses?: Record<string, { description?: string; content?: Record<string, unknown>; [k: string]: unknown }>;
  [k: string]: unknown;
}

export function annotatePaidOperations(doc: { paths?: Record<string, Record<string, OpenApiOperation>> }, billing: Billing): void {
  if (!billing.enabled || !doc.paths) return;
  for (const op of PAID_OPERATIONS) {
    const operation = doc.paths[op.path]?.[op.method];
    if (!operation) continue;
    operation['x-payment-info'] = paymentInfo(billing, op.product);
    const badRequest = operation.responses?.['400'] ?? { description: 'Bad request' };
    operation.responses = {
      ...operation.responses,
      // A payment method we do not take is a 400 in the payment problem format (draft-httpauth-payment).
      400: { ...badRequest, content: { ...badRequest.content, 'application/problem+json': { schema: PAYMENT_PROBLEM_400_SCHEMA } } },
      402: {
        description: 'Payment required: answer one `WWW-Authenticate: Payment` challenge (MPP) or the `PAYMENT-REQUIRED` offer (x402 v2) and repeat the call',
        headers: {
          'WWW-Authenticate': { schema: { type: 'string' }, description: 'one Payment challenge per offered method' },
          'PAYMENT-REQUIRED': { schema: { type: 'string' }, description: 'x402 v2 offer (base64 JSON), chain rail' },
        },
        content: { 'application/problem+json': { schema: PAYMENT_REQUIRED_SCHEMA } },
      },
    };
  }
}

/** /.well-known/mpp.json: the authoritative price table, rails, wire method ids, networks, currencies. */
export function mppDocument(billing: Billing, publicBaseUrl: string) {
  return {
    version: 1,
    service: 'cutroom',
    realm: billing.realm,
    billing: billing.enabled ? 'enabled' : 'disabled (jobs are created already paid)',
    intents: ['charge'],
    protocols: billing.chain ? ['mpp', 'x402'] : billing.enabled ? ['mpp'] : [],
    rails: [
      ...(billing.chain
        ? [
            {
              rail: 'chain',
              method: 'evm',
              intent: 'charge',
              currency: 'USDC',
              asset: billing.chain.asset,
              decimals: 6,
              network: billing.chain.network,
              recipient: billing.chain.recipient,
              eip712: billing.chain.domain,
              credential_types: ['authorization'],
              x402: { version: 2, scheme: 'exact' },
            },
          ]
        : []),
      ...(billing.card
        ? [
            {
              rail: 'card',
              method: 'stripe',
              intent: 'charge',
              currency: 'usd',
              decimals: 2,
              network_id: billing.cardNetworkId,
              hosted_checkout: true,
              // Nothing below it is offered on the card rail (prices[].card is null there).
              min_amount: String(CARD_MIN_CENTS),
            },
          ]
        : []),
    ],
    prices: priceTable(),
    endpoints: PAID_OPERATIONS.map((o) => ({
      method: o.method.toUpperCase(),
      path: o.path,
      intent: 'charge',
      price: o.product === 'job' ? 'by job (see prices)' : 'smoke_test',
    })),
    openapi: `${publicBaseUrl}/openapi.json`,
  };
}
