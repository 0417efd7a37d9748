import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '@cutroom/shared/prices';
import { offers } from '../coordinator/src/discovery/offers.ts';
import { MCP_TOOLS } from '../coordinator/src/mcp/catalog.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Every discovery document over real HTTP, billing on and off, each checked against its published
 * format with a real validator: the A2A Agent Card with the official a2a-sdk (Python, its A2A 1.0
 * AgentCard type), /openapi.json with openapi-spec-validator, the output schemas compiled by ajv
 * (draft 2020-12), and the linkset, MCP server card and ai-plugin manifest against JSON Schemas
 * written from RFC 9264/9727, SEP-1649 and OpenAI's manifest docs (test/discovery-schemas/). The
 * MCP server card is also held to what the live MCP endpoint answers.
 */

const PYTHON = resolve(import.meta.dirname, '../.tools/venv-fuzz/bin/python');
const VALIDATOR = resolve(import.meta.dirname, 'python/validate_discovery.py');
const schema = (name: string) => JSON.parse(readFileSync(resolve(import.meta.dirname, 'discovery-schemas', name), 'utf8'));

/** ajv for draft 2020-12 with the formats (uri, email, …) checked. */
const withFormats = (opts: { strict: boolean }) => {
  const a = new Ajv2020({ ...opts, allErrors: true });
  addFormats.default(a);
  return a;
};
const ajv = withFormats({ strict: true });
const check = (schemaName: string, doc: unknown) => {
  if (!ajv.getSchema(schemaName)) ajv.addSchema(schema(schemaName), schemaName);
  const validate = ajv.getSchema(schemaName)!;
  validate(doc);
  return validate.errors ?? [];
};

async function pythonValidate(docs: Record<string, unknown>): Promise<{ agent_card?: string[]; openapi?: string[] }> {
  const { stdout } = await execa(PYTHON, [VALIDATOR], { input: JSON.stringify(docs) });
  return JSON.parse(stdout);
}

const DOCUMENTS = {
  '/.well-known/agent-card.json': 'application/json',
  '/.well-known/ai-plugin.json': 'application/json',
  '/.well-known/mcp/server-card.json': 'application/json',
  '/.well-known/mpp.json': 'application/json',
  '/openapi.json': 'application/json',
  '/.well-known/openapi.json': 'application/json',
  '/.well-known/api-catalog': 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  '/.well-known/api-catalog.json': 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  '/.well-known/cutroom-a2a-pricing-v1.schema.json': 'application/schema+json',
  '/.well-known/cutroom-transcript-v2.schema.json': 'application/schema+json',
  '/.well-known/cutroom-clips-v1.schema.json': 'application/schema+json',
  '/.well-known/cutroom-subjects-v1.schema.json': 'application/schema+json',
  '/.well-known/cutroom-summary-v1.schema.json': 'application/schema+json',
  '/docs': 'text/markdown',
  '/logo.png': 'image/png',
  '/logo.svg': 'image/svg+xml',
} as const;

describe('discovery documents', () => {
  let on: Stack;
  let off: Stack;
  const get = async (stack: Stack, path: string) => {
    const res = await fetch(`${stack.coordinator.url}${path}`);
    expect(res.status, path).toBe(200);
    return res;
  };
  const json = async (stack: Stack, path: string) => (await get(stack, path)).json() as Promise<any>;

  beforeAll(async () => {
    [on, off] = await Promise.all([startStack({ billing: true, storage: 'local', agents: 0 }), startStack({ storage: 'local', agents: 0 })]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([on?.stop(), off?.stop()]);
  });

  it('serves every document with its media type, to any origin, cacheable, linking to the API catalog', async () => {
    for (const stack of [on, off]) {
      const catalog = `<${stack.coordinator.url}/.well-known/api-catalog>; rel="api-catalog"`;
      for (const [path, type] of Object.entries(DOCUMENTS)) {
        const res = await get(stack, path);
        expect(res.headers.get('content-type'), path).toContain(type);
        expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
        expect(res.headers.get('cache-control'), path).toBe('public, max-age=3600');
        expect(res.headers.get('link'), path).toBe(catalog);
        expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
    }
    const png = Buffer.from(await (await get(on, '/logo.png')).arrayBuffer());
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('answers HEAD on the API catalog with its Link header and no body (RFC 9727 section 3)', async () => {
    const res = await fetch(`${on.coordinator.url}/.well-known/api-catalog`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe(`<${on.coordinator.url}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(res.headers.get('content-type')).toContain('application/linkset+json');
    expect(await res.text()).toBe('');
  });

  it('serves an A2A 1.0 agent card the official a2a-sdk accepts, with a skill and its prices for every offer', async () => {
    for (const stack of [on, off]) {
      const card = await json(stack, '/.well-known/agent-card.json');
      const result = await pythonValidate({ agent_card: card });
      expect(result.agent_card, JSON.stringify(result.agent_card)).toEqual([]);
      expect(card.skills.map((s: any) => s.id)).toEqual(offers().map((o) => o.id));
      expect(card.supportedInterfaces.map((i: any) => [i.url, i.protocolBinding])).toEqual([
        [`${stack.coordinator.url}/mcp`, 'MCP'],
        [`${stack.coordinator.url}/api/v1`, 'REST'],
      ]);
      // The pricing extension's params match the JSON Schema served at its URI.
      const ext = card.capabilities.extensions[0];
      const extSchema = (await (await fetch(ext.uri)).json()) as Record<string, unknown>;
      const validate = withFormats({ strict: false }).compile(extSchema);
      expect(validate(ext.params), JSON.stringify(validate.errors)).toBe(true);
      expect(ext.params.skills.extract_vertical_clip.prices[0]).toMatchObject({
        chain: { amount: String(PRICES.extract_vertical_clip.chainUnits) },
        card: { amount: String(PRICES.extract_vertical_clip.cardCents) },
      });
      expect(ext.params.skills.clips_from_video.prices[0]).toMatchObject({ chain: null, card: { amount: String(PRICES.clips_bundle_hold.cardCents) } });
    }
    expect(Object.keys((await json(on, '/.well-known/agent-card.json')).securitySchemes)).toEqual(['session', 'payment']);
    expect(Object.keys((await json(off, '/.well-known/agent-card.json')).securitySchemes)).toEqual(['session']);
  });

  it('serves a valid OpenAPI 3.1 document with every REST route, the derivatives route and the edit field included', async () => {
    for (const stack of [on, off]) {
      const doc = await json(stack, '/openapi.json');
      const result = await pythonValidate({ openapi: doc });
      expect(result.openapi, JSON.stringify(result.openapi)).toEqual([]);
      expect(await json(stack, '/.well-known/openapi.json')).toEqual(doc);
      for (const [path, method] of [
        ['/api/v1/sessions', 'post'],
        ['/api/v1/sessions/me', 'get'],
        ['/api/v1/jobs', 'post'],
        ['/api/v1/jobs/{id}', 'get'],
        ['/api/v1/jobs/{id}/upload-url', 'get'],
        ['/api/v1/jobs/{id}/complete-upload', 'post'],
        ['/api/v1/jobs/{id}/process', 'post'],
        ['/api/v1/jobs/{id}/checkout', 'post'],
        ['/api/v1/jobs/{id}/events', 'get'],
        ['/api/v1/jobs/{id}/outputs/{role}/download', 'get'],
        ['/api/v1/jobs/{id}/source', 'delete'],
        ['/api/v1/jobs/{id}/outputs/{role}', 'delete'],
        ['/api/v1/jobs/{parent_job_id}/derivatives', 'post'],
        ['/api/test', 'get'],
      ] as const)
        expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
      const create = doc.paths['/api/v1/jobs'].post.requestBody.content['application/json'].schema;
      expect(create.properties.edit).toBeDefined();
      expect(create.properties.job_type.enum).toContain('edit_from_transcript');
      // Every REST operation an offer names exists.
      for (const o of offers()) if (o.rest) expect(doc.paths[o.rest.path]?.[o.rest.method.toLowerCase() as string], o.id).toBeDefined();
    }
  });

  it('serves the output schemas as JSON Schema draft 2020-12 documents ajv compiles, each $id where it is served', async () => {
    for (const name of ['transcript-v2', 'clips-v1', 'subjects-v1', 'summary-v1', 'a2a-pricing-v1']) {
      const url = `${on.coordinator.url}/.well-known/cutroom-${name}.schema.json`;
      const doc = (await (await fetch(url)).json()) as Record<string, unknown>;
      expect(doc.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc.$id, name).toBe(url);
      const strict = new Ajv2020({ strict: true, validateFormats: false });
      expect(strict.validateSchema(doc), JSON.stringify(strict.errors)).toBe(true);
      expect(() => withFormats({ strict: false }).compile(doc), name).not.toThrow();
    }
  });

  it('serves an RFC 9727 API catalog: an RFC 9264 linkset describing the REST API and the MCP endpoint', async () => {
    const base = on.coordinator.url;
    const doc = await json(on, '/.well-known/api-catalog');
    expect(check('linkset-rfc9264.schema.json', doc)).toEqual([]);
    expect(await json(on, '/.well-known/api-catalog.json')).toEqual(doc);
    const context = (anchor: string) => doc.linkset.find((c: any) => c.anchor === `${base}${anchor}`);
    expect(context('/.well-known/api-catalog').item.map((l: any) => l.href)).toEqual([`${base}/api/v1`, `${base}/mcp`]);
    expect(context('/api/v1')['service-desc'][0].href).toBe(`${base}/openapi.json`);
    expect(context('/mcp')['service-desc'][0].href).toBe(`${base}/.well-known/mcp/server-card.json`);
    // Every link of the catalog resolves on this coordinator (the MCP endpoint itself takes POST only).
    for (const c of doc.linkset)
      for (const [rel, targets] of Object.entries(c))
        if (rel !== 'anchor' && rel !== 'item')
          for (const t of targets as { href: string }[]) expect((await fetch(t.href.split('#')[0]!)).status, t.href).toBe(200);
  });

  it('serves an MCP server card in the SEP-1649 shape that matches what the live endpoint answers', async () => {
    const card = await json(on, '/.well-known/mcp/server-card.json');
    expect(check('mcp-server-card-sep1649.schema.json', card)).toEqual([]);
    const client = new Client({ name: 'cutroom-discovery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(card.transport.endpoint)));
    try {
      expect(client.getServerVersion()).toMatchObject(card.serverInfo);
      expect(client.getServerCapabilities()).toEqual(card.capabilities);
      expect(client.getInstructions()).toBe(card.instructions);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
      for (const tool of tools) {
        const entry = card.tools.find((t: any) => t.name === tool.name);
        expect({ title: entry.title, description: entry.description, inputSchema: entry.inputSchema }, tool.name).toEqual({
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
        });
      }
    } finally {
      await client.close();
    }
    expect(card._meta['cutroom/protocolVersions']).toContain('2025-03-26');
  });

  it('serves an OpenAI plugin manifest pointing at the OpenAPI document and the logo', async () => {
    for (const stack of [on, off]) {
      const manifest = await json(stack, '/.well-known/ai-plugin.json');
      expect(check('ai-plugin-v1.schema.json', manifest)).toEqual([]);
      expect((await fetch(manifest.api.url)).headers.get('content-type')).toContain('application/json');
      expect((await fetch(manifest.logo_url)).headers.get('content-type')).toBe('image/png');
      expect(manifest.description_for_model).toMatch(/START with a find_clips job[\s\S]*WITHOUT re-uploading/);
    }
  });

  it('has validators that refuse broken documents (none of the checks above is vacuous)', async () => {
    const card = await json(on, '/.well-known/agent-card.json');
    const { version: _v, ...noVersion } = card;
    const broken = await pythonValidate({
      agent_card: { ...noVersion, skills: [{ ...card.skills[0], tags: [] }] },
      openapi: { ...(await json(on, '/openapi.json')), paths: { '/x': { get: { responses: 'none' } } } },
    });
    expect(broken.agent_card).toEqual(['card.version is required', 'card.skills[0].tags is required']);
    expect(broken.openapi).toHaveLength(1);
    expect((await pythonValidate({ agent_card: { ...card, url: 'https://elsewhere' } })).agent_card![0]).toMatch(/no field named "url"/);
    const manifest = await json(on, '/.well-known/ai-plugin.json');
    expect(check('ai-plugin-v1.schema.json', { ...manifest, name_for_human: 'a name longer than twenty', contact_email: 'nobody' })).toHaveLength(2);
    const server = await json(on, '/.well-known/mcp/server-card.json');
    expect(check('mcp-server-card-sep1649.schema.json', { ...server, transport: { type: 'streamable-http' } })).not.toEqual([]);
    expect(check('linkset-rfc9264.schema.json', { linkset: [{ anchor: 'x', item: [{ title: 'no href' }] }], extra: 1 })).not.toEqual([]);
  });

  it('lists every product with its price in mpp.json, clips_youtube included', async () => {
    const doc = await json(on, '/.well-known/mpp.json');
    const products = new Set(doc.prices.map((p: any) => p.product));
    for (const o of offers()) for (const row of o.prices) expect(products.has(row.product), row.product).toBe(true);
    expect(doc.prices.find((p: any) => p.product === 'clips_youtube')).toMatchObject({ chain: null, card: { display: '4.50' } });
    expect(doc.prices.find((p: any) => p.product === 'clips_vertical').note).toMatch(/only through MCP/);
  });
});
