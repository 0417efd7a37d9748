import { describe, expect, it } from 'vitest';
import { PRICES } from '@cutroom/shared/prices';
import { SERVICE_VERSION } from '../version.ts';
import { agentCard } from './agent-card.ts';
import { offers } from './offers.ts';
import { PricingParams, pricingExtensionSchema } from './pricing-extension.ts';
import { MCP_LATEST_VERSION } from './site.ts';
import { testSite } from './test-site.ts';

const card = agentCard(testSite(true));
const skill = (id: string) => card.skills.find((s) => s.id === id)!;
const params = () => PricingParams.parse(card.capabilities.extensions[0]!.params);

describe('agent card (A2A 1.0)', () => {
  it('names the service, its version and the interfaces that exist, none of them A2A', () => {
    expect(card).toMatchObject({ name: 'cutroom', version: SERVICE_VERSION, provider: { organization: 'cutroom', url: 'https://cutroom.example.com' } });
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://cutroom.example.com/mcp', protocolBinding: 'MCP', protocolVersion: MCP_LATEST_VERSION },
      { url: 'https://cutroom.example.com/api/v1', protocolBinding: 'REST', protocolVersion: SERVICE_VERSION },
    ]);
    for (const i of card.supportedInterfaces) expect(['JSONRPC', 'GRPC', 'HTTP+JSON']).not.toContain(i.protocolBinding);
    expect(card).not.toHaveProperty('url');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
  });

  it('has a skill for every offer, with its prices in words and in the pricing extension', () => {
    expect(card.skills.map((s) => s.id)).toEqual(offers().map((o) => o.id));
    expect(skill('find_clips').description).toContain(
      `${(PRICES.find_clips.video.chainUnits! / 1e6).toFixed(2)} USDC (chain) or ${(PRICES.find_clips.video.cardCents / 100).toFixed(2)} USD (card)`,
    );
    expect(skill('clips_youtube').description).toContain('card only: a hold of 4.50 USD');
    expect(skill('clips_youtube').tags).toEqual(['mcp', 'rail:card', 'price:hold']);
    expect(skill('transcribe').tags).toEqual(['mcp', 'rest', 'rail:chain', 'rail:card', 'price:per_job']);
    const p = params();
    expect(Object.keys(p.skills)).toEqual(card.skills.map((s) => s.id));
    expect(p.skills['summarize']!.prices.find((r) => r.media === 'audio')).toMatchObject({
      chain: { amount: String(PRICES.summarize.audio.chainUnits), currency: 'USDC' },
      card: { amount: String(PRICES.summarize.audio.cardCents), currency: 'USD' },
    });
    expect(p.skills['clips_vertical']!.rest!.rails).toEqual(['card']);
    expect(p).toMatchObject({ billing: 'enabled', rails: ['chain', 'card'], priceTable: 'https://cutroom.example.com/.well-known/mpp.json' });
  });

  it('identifies the extension by the URL of the JSON Schema of its params', () => {
    const ext = card.capabilities.extensions[0]!;
    expect(ext.uri).toBe('https://cutroom.example.com/.well-known/cutroom-a2a-pricing-v1.schema.json');
    expect(pricingExtensionSchema(testSite(true))).toMatchObject({ $id: ext.uri, $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(ext.required).toBe(false);
  });

  it('declares the bearer session scheme, and the MPP Payment scheme only while billing is on', () => {
    expect(card.securitySchemes).toMatchObject({
      session: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
      payment: { httpAuthSecurityScheme: { scheme: 'Payment' } },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { session: { list: [] } } }, { schemes: { payment: { list: [] } } }]);
    const off = agentCard(testSite(false));
    expect(Object.keys(off.securitySchemes)).toEqual(['session']);
    expect(off.securityRequirements).toEqual([{ schemes: { session: { list: [] } } }]);
    expect(PricingParams.parse(off.capabilities.extensions[0]!.params)).toMatchObject({ billing: 'disabled', rails: [] });
  });
});
