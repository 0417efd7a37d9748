import { z } from 'zod';
import { type Offer, offers } from './offers.ts';
import { PATHS, type Site, url } from './site.ts';

/**
 * cutroom's A2A extension "pricing v1": a data-only extension (A2A "Extensions": it adds
 * structured data to the Agent Card and changes no request) carrying the price of every skill on
 * both rails and the interface that sells it. Its URI is the URL of the JSON Schema of its params,
 * served by the deployment itself (PATHS.pricingExtension); a client recognises it by that path.
 * The schema is generated from the zod schema below, which the unit tests hold the params to.
 */

const Rail = z.enum(['chain', 'card']);
const Amount = z.strictObject({
  amount: z.string().describe('Integer, in base units (USDC: 6 decimals; USD: cents)'),
  display: z.string(),
  currency: z.enum(['USDC', 'USD']),
  decimals: z.number().int(),
});
const PriceRow = z
  .object({
    product: z.string(),
    media: z.enum(['audio', 'video']).optional(),
    unit: z.string().optional(),
    note: z.string().optional(),
    chain: Amount.nullable().describe('null: not sold on the chain rail'),
    card: Amount.nullable().describe('null: not sold on the card rail (below its minimum)'),
  })
  .describe('A row of the price table /.well-known/mpp.json serves');

export const PricingParams = z.strictObject({
  billing: z.enum(['enabled', 'disabled']).describe('disabled: this deployment creates every job already paid'),
  rails: z.array(Rail).describe('Rails this deployment takes now'),
  priceTable: z.url().describe('The authoritative price table (mpp.json)'),
  skills: z.record(
    z.string(),
    z.strictObject({
      unit: z.enum(['per_job', 'per_call', 'per_clip', 'hold']),
      prices: z.array(PriceRow).min(1),
      mcp: z.strictObject({ tool: z.string(), rails: z.array(Rail) }),
      rest: z
        .strictObject({ method: z.enum(['GET', 'POST']), path: z.string(), job_type: z.string().optional(), rails: z.array(Rail) })
        .nullable()
        .describe('null: sold through MCP only'),
    }),
  ),
});
export type PricingParams = z.infer<typeof PricingParams>;

export const pricingExtensionUri = (site: Site): string => url(site, PATHS.pricingExtension);

export function pricingParams(site: Site, list: Offer[] = offers()): PricingParams {
  return {
    billing: site.billing,
    rails: site.rails,
    priceTable: url(site, PATHS.mpp),
    skills: Object.fromEntries(list.map((o) => [o.id, { unit: o.unit, prices: o.prices, mcp: o.mcp, rest: o.rest }])),
  };
}

/** The JSON Schema (draft 2020-12) served at the extension's URI. */
export function pricingExtensionSchema(site: Site): Record<string, unknown> {
  return {
    ...z.toJSONSchema(PricingParams, { target: 'draft-2020-12' }),
    $id: pricingExtensionUri(site),
    title: 'cutroom A2A pricing extension v1: params',
    description: 'AgentExtension.params of the extension with this URI in capabilities.extensions of /.well-known/agent-card.json',
  };
}
