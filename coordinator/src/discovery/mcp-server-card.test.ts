import { describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOLS, toolInputJsonSchema } from '../mcp/catalog.ts';
import { MCP_INSTRUCTIONS } from '../mcp/server.ts';
import { SERVICE_VERSION } from '../version.ts';
import { mcpServerCard } from './mcp-server-card.ts';
import { MCP_PROTOCOL_VERSIONS } from './site.ts';
import { testSite } from './test-site.ts';

const card = mcpServerCard(testSite(true));

describe('MCP server card (SEP-1649 shape)', () => {
  it('mirrors the initialize result and names the Streamable HTTP endpoint', () => {
    expect(card).toMatchObject({
      version: '1.0',
      serverInfo: { name: 'cutroom', version: SERVICE_VERSION },
      transport: { type: 'streamable-http', endpoint: 'https://cutroom.example.com/mcp' },
      capabilities: { tools: { listChanged: false } },
      instructions: MCP_INSTRUCTIONS,
      authentication: { required: false, schemes: ['bearer'] },
    });
  });

  it('publishes 2025-03-26 and every newer version the SDK negotiates, the latest as protocolVersion', () => {
    expect(MCP_PROTOCOL_VERSIONS).toContain('2025-03-26');
    expect(MCP_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= '2025-03-26'));
    expect(card._meta['cutroom/protocolVersions']).toEqual(MCP_PROTOCOL_VERSIONS);
    expect(card.protocolVersion).toBe(MCP_PROTOCOL_VERSIONS[0]);
  });

  it('lists every MCP tool with the input schema tools/list answers, and its price', () => {
    expect(card.tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const tool of MCP_TOOLS) {
      const entry = card.tools.find((t) => t.name === tool.name)!;
      expect(entry).toMatchObject({ title: tool.title, description: tool.description, inputSchema: toolInputJsonSchema(tool) });
      if (tool.price.kind === 'free') expect(entry._meta['cutroom/price'], tool.name).toEqual({ text: 'free', unit: 'free' });
      else expect(entry._meta['cutroom/price'], tool.name).toMatchObject({ mcp: { tool: tool.name } });
    }
    expect(card.tools.find((t) => t.name === 'clips_from_video')!._meta['cutroom/price']).toMatchObject({ unit: 'hold', mcp: { rails: ['card'] } });
    expect(card._meta['cutroom/payment']).toMatchObject({ paymentRequiredError: -32042, credentialMeta: 'org.paymentauth/credential' });
  });
});
