import { JOB_TYPES } from '@cutroom/shared/job-types';
import { MCP_TOOLS, type ToolEntry, type ToolPrice } from '../mcp/catalog.ts';
import { priceTable } from '../payments/discovery.ts';
import type { Rail } from './site.ts';

/**
 * What an agent can buy, one offer per paid MCP tool, priced from the price table mpp.json
 * serves (payments/discovery.ts priceTable(), itself read from shared's PRICES). The agent card,
 * the MCP server card, ai-plugin.json and /docs all read this list: no price is written twice.
 */

export type PriceRow = ReturnType<typeof priceTable>[number];
export type Unit = 'per_job' | 'per_call' | 'per_clip' | 'hold';

export interface RestOperation {
  method: 'GET' | 'POST';
  path: string;
  job_type?: string;
  rails: Rail[];
}

export interface Offer {
  /** The MCP tool name; also the agent card's skill id. */
  id: string;
  tool: ToolEntry;
  unit: Unit;
  /** Rows of the price table (one per media kind for uploads). */
  prices: PriceRow[];
  mcp: { tool: string; rails: Rail[] };
  /** The REST operation that sells the same thing, or null where only MCP does. */
  rest: RestOperation | null;
}

/** The price table row a tool's price names. */
function productOf(price: Exclude<ToolPrice, { kind: 'free' }>): string {
  switch (price.kind) {
    case 'job':
    case 'per_clip':
      return price.jobType;
    case 'hold':
      return price.product;
    case 'smoke_test':
      return 'smoke_test';
  }
}

function unitOf(price: Exclude<ToolPrice, { kind: 'free' }>): Unit {
  if (price.kind === 'per_clip') return 'per_clip';
  if (price.kind === 'hold') return 'hold';
  if (price.kind === 'smoke_test') return 'per_call';
  const by = JOB_TYPES[price.jobType].pricing.by;
  return by === 'media' ? 'per_job' : by === 'item' ? 'per_clip' : by === 'hold' ? 'hold' : 'per_call';
}

/** The rails every row of an offer is sold on: a price below the card minimum is chain only (the smoke test). */
const railsOf = (rows: PriceRow[]): Rail[] => [
  ...(rows.every((r) => r.chain) ? (['chain'] as const) : []),
  ...(rows.every((r) => r.card) ? (['card'] as const) : []),
];

/**
 * Where REST sells a tool's product: job types through POST /jobs (both rails: MPP challenge or
 * hosted checkout), the vertical bundle through the derivatives route (hosted checkout only, so
 * card only), the smoke test at /api/test. Everything else (16:9 bundles, clips_from_job, the agent
 * products) is MCP only.
 */
function restOf(tool: ToolEntry, rails: Rail[]): RestOperation | null {
  const price = tool.price;
  if (price.kind === 'job') return { method: 'POST', path: '/api/v1/jobs', job_type: price.jobType, rails };
  if (price.kind === 'per_clip' && tool.name === price.jobType && price.jobType === 'clips_vertical')
    return { method: 'POST', path: '/api/v1/jobs/{parent_job_id}/derivatives', job_type: price.jobType, rails: ['card'] };
  if (price.kind === 'smoke_test') return { method: 'GET', path: '/api/test', rails };
  return null;
}

export function offers(): Offer[] {
  const table = priceTable();
  return MCP_TOOLS.flatMap((tool) => {
    const price = tool.price;
    if (price.kind === 'free') return [];
    const product = productOf(price);
    const prices = table.filter((r) => r.product === product);
    if (prices.length === 0) throw new Error(`no price table row for ${product} (MCP tool ${tool.name})`);
    const rails = railsOf(prices);
    return [{ id: tool.name, tool, unit: unitOf(price), prices, mcp: { tool: tool.name, rails }, rest: restOf(tool, rails) }];
  });
}

const UNIT_WORDS: Record<Unit, string> = { per_job: 'per job', per_call: 'per call', per_clip: 'per clip', hold: '' };

function amounts(r: PriceRow): string {
  if (!r.card) return `${r.chain!.display} USDC (chain), chain only (below the card minimum)`;
  const card = `${r.card.display} USD (card)`;
  return r.chain ? `${r.chain.display} USDC (chain) or ${card}` : `${card}, card only`;
}

/** The price in words, e.g. "audio 0.20 USDC (chain) or 0.50 USD (card); video … per job". */
export function priceText(o: Offer): string {
  if (o.unit === 'hold')
    return `card only: a hold of ${o.prices[0]!.card!.display} USD (the worst case), of which only what is delivered is charged; a failed step is not charged`;
  const each = o.prices.map((r) => (r.media ? `${r.media} ${amounts(r)}` : amounts(r))).join('; ');
  const restNote = o.rest && o.rest.rails.length < o.mcp.rails.length ? ` (the chain rate through MCP only; over REST ${o.rest.rails.join(', ')} only)` : '';
  return `${each} ${UNIT_WORDS[o.unit]}${restNote}`;
}

/** Which interfaces sell an offer, in words. */
export function interfacesText(o: Offer, base: string): string {
  const mcp = `MCP: tool ${o.mcp.tool} at ${base}/mcp`;
  if (!o.rest) return `${mcp} (MCP only).`;
  const body = o.rest.job_type ? ` with job_type ${o.rest.job_type}` : '';
  return `${mcp}. REST: ${o.rest.method} ${base}${o.rest.path}${body}.`;
}
