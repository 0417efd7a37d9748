import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { CoordinatorConfig } from '../config.ts';
import type { Billing } from '../payments/billing.ts';

/** Where each discovery document and what it points at lives, relative to PUBLIC_BASE_URL. */
export const PATHS = {
  rest: '/api/v1',
  mcp: '/mcp',
  openapi: '/openapi.json',
  mpp: '/.well-known/mpp.json',
  agentCard: '/.well-known/agent-card.json',
  aiPlugin: '/.well-known/ai-plugin.json',
  mcpServerCard: '/.well-known/mcp/server-card.json',
  apiCatalog: '/.well-known/api-catalog',
  apiCatalogJson: '/.well-known/api-catalog.json',
  pricingExtension: '/.well-known/cutroom-a2a-pricing-v1.schema.json',
  docs: '/docs',
  health: '/health',
  logoPng: '/logo.png',
  logoSvg: '/logo.svg',
} as const;

/**
 * MCP protocol versions the endpoint answers: the spec's 2025-03-26 and every newer one the
 * official SDK negotiates (its own list, so an SDK upgrade updates the documents).
 */
export const MCP_BASELINE_VERSION = '2025-03-26';
export const MCP_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= MCP_BASELINE_VERSION);
export const MCP_LATEST_VERSION: string = LATEST_PROTOCOL_VERSION;

export type Rail = 'chain' | 'card';

/** What every document says about this deployment: where it is, who runs it, which rails it takes. */
export interface Site {
  base: string;
  provider: { organization: string; url: string };
  contactEmail: string;
  legalInfoUrl: string;
  docsUrl: string;
  /** Billing off: every job is created already paid (prices are still the published list). */
  billing: 'enabled' | 'disabled';
  /** The rails this deployment has configured (the price list names both). */
  rails: Rail[];
}

export function siteOf(config: CoordinatorConfig, billing: Pick<Billing, 'enabled' | 'chain' | 'card'>): Site {
  const base = config.publicBaseUrl;
  return {
    base,
    provider: { organization: config.PROVIDER_NAME, url: config.PROVIDER_URL ?? base },
    contactEmail: config.contactEmail,
    legalInfoUrl: config.LEGAL_INFO_URL ?? `${base}${PATHS.docs}#terms`,
    docsUrl: config.DOCS_URL ?? `${base}${PATHS.docs}`,
    billing: billing.enabled ? 'enabled' : 'disabled',
    rails: [...(billing.chain ? (['chain'] as const) : []), ...(billing.card ? (['card'] as const) : [])],
  };
}

export const url = (site: Site, path: string): string => `${site.base}${path}`;
