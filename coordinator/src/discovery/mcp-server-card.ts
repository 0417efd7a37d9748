import { MCP_INSTRUCTIONS } from '../mcp/server.ts';
import { MCP_TOOLS, toolInputJsonSchema } from '../mcp/catalog.ts';
import { SERVICE_VERSION } from '../version.ts';
import { type Offer, offers, priceText } from './offers.ts';
import { pricingParams } from './pricing-extension.ts';
import { MCP_LATEST_VERSION, MCP_PROTOCOL_VERSIONS, PATHS, type Site, url } from './site.ts';

/**
 * /.well-known/mcp/server-card.json: the MCP Server Card in the shape of SEP-1649 (the .well-known
 * proposal the spec's path comes from; its text lives on as the first revision of SEP-2127): it
 * mirrors the initialize result (protocolVersion, serverInfo, capabilities, instructions) and lists
 * the tools statically, with the same input schemas tools/list answers (mcp/catalog.ts), so a
 * client can read every tool and its price before connecting. Prices and payment go in `_meta`
 * under the `cutroom/` prefix (MCP `_meta` keys may carry a vendor prefix).
 */

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json';

/** The capabilities buildMcpServer() declares (mcp/server.ts): tools only, a fixed list. */
export const MCP_CAPABILITIES = { tools: { listChanged: false } };

export function mcpServerCard(site: Site, list: Offer[] = offers()) {
  const byTool = new Map(list.map((o) => [o.mcp.tool, o]));
  const params = pricingParams(site, list);
  return {
    $schema: SERVER_CARD_SCHEMA,
    version: '1.0',
    protocolVersion: MCP_LATEST_VERSION,
    serverInfo: { name: 'cutroom', title: 'cutroom: paid audio/video post-production', version: SERVICE_VERSION },
    description:
      'Pay-per-job audio/video post-production for AI agents: transcripts, summaries, clip discovery, vertical and 16:9 clips, editing by transcript. Paid tools answer JSON-RPC -32042 with MPP challenges (chain USDC or card USD) and a hosted card checkout URL.',
    iconUrl: url(site, PATHS.logoPng),
    documentationUrl: site.docsUrl,
    transport: { type: 'streamable-http', endpoint: url(site, PATHS.mcp) },
    capabilities: MCP_CAPABILITIES,
    // No token is needed to connect: create_session is free, and a paid call without one opens a session.
    authentication: { required: false, schemes: ['bearer'] },
    instructions: MCP_INSTRUCTIONS,
    resources: [],
    prompts: [],
    tools: MCP_TOOLS.map((t) => {
      const offer = byTool.get(t.name);
      return {
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: toolInputJsonSchema(t),
        _meta: { 'cutroom/price': offer ? { text: priceText(offer), ...params.skills[offer.id] } : { text: 'free', unit: 'free' } },
      };
    }),
    _meta: {
      'cutroom/protocolVersions': MCP_PROTOCOL_VERSIONS,
      'cutroom/payment': {
        protocol: 'mpp',
        billing: site.billing,
        rails: site.rails,
        paymentRequiredError: -32042,
        verificationFailedError: -32043,
        credentialMeta: 'org.paymentauth/credential',
        receiptMeta: 'org.paymentauth/receipt',
        hostedCheckout: true,
        priceTable: url(site, PATHS.mpp),
      },
      'cutroom/stateless': true,
    },
  };
}
