import { SERVICE_VERSION } from '../version.ts';
import { interfacesText, type Offer, offers, priceText } from './offers.ts';
import { pricingExtensionUri, pricingParams } from './pricing-extension.ts';
import { MCP_LATEST_VERSION, PATHS, type Site, url } from './site.ts';

/**
 * /.well-known/agent-card.json: an A2A Agent Card in the shape of A2A 1.0 (lf.a2a.v1 AgentCard,
 * the version the official a2a-sdk calls current; supportedInterfaces replaced the 0.3 `url`).
 *
 * cutroom does not speak A2A. A2A 1.0 calls protocolBinding "an open form string" (JSONRPC, GRPC
 * and HTTP+JSON being A2A's own bindings), so the card lists the interfaces that do exist under
 * bindings that are not A2A's: `MCP` (Streamable HTTP, described by the MCP server card) and `REST`
 * (described by /openapi.json), each with that protocol's version. An A2A client finds no binding it
 * speaks and stops, which is the truth; any other reader learns where to go. There is no top-level
 * 0.3 `url`, which a 0.3 client would send A2A JSON-RPC to.
 */

export const A2A_CARD_VERSION = '1.0';

const bindingNote = (site: Site) =>
  `It does not implement the A2A protocol: supportedInterfaces lists its MCP endpoint (protocolBinding MCP, Streamable HTTP, JSON-RPC 2.0, described by ${url(site, PATHS.mcpServerCard)}) and its REST API (protocolBinding REST, described by ${url(site, PATHS.openapi)}).`;

function skillOf(o: Offer, site: Site) {
  const rails = o.rest ? [...new Set([...o.mcp.rails, ...o.rest.rails])] : o.mcp.rails;
  return {
    id: o.id,
    name: o.tool.title,
    description: `${o.tool.description}\n\nPrice: ${priceText(o)}. ${interfacesText(o, site.base)} Machine-readable prices: capabilities.extensions ${pricingExtensionUri(site)}.`,
    tags: ['mcp', ...(o.rest ? ['rest'] : []), ...rails.map((r) => `rail:${r}`), `price:${o.unit}`],
  };
}

export function agentCard(site: Site, list: Offer[] = offers()) {
  const payment = site.billing === 'enabled';
  return {
    name: 'cutroom',
    description: `Pay-per-job audio/video post-production for API callers and AI agents, no account: transcripts, summaries, clip discovery, vertical and 16:9 clips, editing by transcript. Paid per job on two rails: chain (USDC, MPP/x402) and card (USD, MPP or hosted checkout); failed jobs are refunded. For clips start with find_clips (it includes the transcript), then cut its candidates without re-uploading.${payment ? '' : ' This deployment has billing off: every job is created already paid.'} ${bindingNote(site)}`,
    supportedInterfaces: [
      { url: url(site, PATHS.mcp), protocolBinding: 'MCP', protocolVersion: MCP_LATEST_VERSION },
      { url: url(site, PATHS.rest), protocolBinding: 'REST', protocolVersion: SERVICE_VERSION },
    ],
    provider: site.provider,
    version: SERVICE_VERSION,
    documentationUrl: site.docsUrl,
    iconUrl: url(site, PATHS.logoPng),
    capabilities: {
      // MCP tools stream progress notifications over SSE, REST has GET /jobs/{id}/events; no webhooks.
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: pricingExtensionUri(site),
          description:
            'cutroom pricing v1 (data only): the price of every skill on both rails (chain: USDC base units, card: USD cents) and the MCP tool / REST operation that sells it. params match the JSON Schema at this URI.',
          required: false,
          params: pricingParams(site, list),
        },
      ],
    },
    securitySchemes: {
      session: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description: `session_token from POST ${url(site, PATHS.rest)}/sessions (free, anonymous), or the MCP tool create_session`,
        },
      },
      ...(payment && {
        payment: {
          httpAuthSecurityScheme: {
            scheme: 'Payment',
            description: `Machine Payments Protocol credential answering a 402 WWW-Authenticate: Payment challenge (over MCP: JSON-RPC error -32042, credential in _meta["org.paymentauth/credential"]); rails and prices at ${url(site, PATHS.mpp)}`,
          },
        },
      }),
    },
    securityRequirements: [{ schemes: { session: { list: [] } } }, ...(payment ? [{ schemes: { payment: { list: [] } } }] : [])],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: list.map((o) => skillOf(o, site)),
  };
}
