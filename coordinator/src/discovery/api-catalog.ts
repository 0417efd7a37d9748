import { PATHS, type Site, url } from './site.ts';

/**
 * /.well-known/api-catalog (RFC 9727): a linkset (RFC 9264 JSON, `application/linkset+json` with
 * the RFC 9727 profile) with one link context per API, described by RFC 8631 relations
 * (service-desc: machine description, service-doc: human documentation, service-meta: other
 * metadata, status: health), and the catalog's own context listing both APIs as `item`s.
 */

export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const LINKSET_CONTENT_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

/** The Link header RFC 9727 asks HEAD (and we also GET) answers of the catalog to carry, and the other documents too. */
export const apiCatalogLink = (site: Site): string => `<${url(site, PATHS.apiCatalog)}>; rel="api-catalog"`;

export function apiCatalog(site: Site) {
  const link = (path: string, type: string, title?: string) => ({ href: url(site, path), type, ...(title && { title }) });
  const doc = { href: site.docsUrl, type: 'text/markdown', title: 'cutroom documentation: flows, prices, terms' };
  const status = link(PATHS.health, 'application/json', 'health: ok or degraded per dependency');
  const prices = link(PATHS.mpp, 'application/json', 'price table and payment rails (MPP discovery)');
  const agentCard = link(PATHS.agentCard, 'application/json', 'A2A agent card: skills and prices on both rails');
  return {
    linkset: [
      {
        anchor: url(site, PATHS.apiCatalog),
        item: [
          { href: url(site, PATHS.rest), title: 'cutroom REST API v1' },
          { href: url(site, PATHS.mcp), title: 'cutroom MCP endpoint (Streamable HTTP)' },
        ],
      },
      {
        anchor: url(site, PATHS.rest),
        'service-desc': [link(PATHS.openapi, 'application/vnd.oai.openapi+json;version=3.1', 'OpenAPI 3.1 description')],
        'service-doc': [doc],
        'service-meta': [prices, agentCard, link(PATHS.aiPlugin, 'application/json', 'OpenAI plugin manifest')],
        status: [status],
      },
      {
        anchor: url(site, PATHS.mcp),
        'service-desc': [link(PATHS.mcpServerCard, 'application/json', 'MCP server card: transport, protocol versions, tools with input schemas and prices')],
        'service-doc': [doc],
        'service-meta': [prices, agentCard],
        status: [status],
      },
    ],
  };
}
