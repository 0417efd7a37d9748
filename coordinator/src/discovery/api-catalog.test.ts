import { describe, expect, it } from 'vitest';
import { apiCatalog, apiCatalogLink, LINKSET_CONTENT_TYPE } from './api-catalog.ts';
import { docsPage } from './docs-page.ts';
import { testSite } from './test-site.ts';

const base = 'https://cutroom.example.com';

describe('api-catalog (RFC 9727 linkset)', () => {
  const doc = apiCatalog(testSite(true));
  const context = (anchor: string) => doc.linkset.find((c) => c.anchor === `${base}${anchor}`) as unknown as Record<string, { href: string }[]>;

  it('is a linkset with the RFC 9727 profile, listing both APIs as items', () => {
    expect(Object.keys(doc)).toEqual(['linkset']);
    expect(LINKSET_CONTENT_TYPE).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(context('/.well-known/api-catalog')['item']!.map((l) => l.href)).toEqual([`${base}/api/v1`, `${base}/mcp`]);
    expect(apiCatalogLink(testSite(true))).toBe(`<${base}/.well-known/api-catalog>; rel="api-catalog"`);
  });

  it('describes the REST API and the MCP endpoint with RFC 8631 relations', () => {
    const rest = context('/api/v1');
    expect(rest['service-desc']!.map((l) => l.href)).toEqual([`${base}/openapi.json`]);
    expect(rest['status']!.map((l) => l.href)).toEqual([`${base}/health`]);
    expect(rest['service-meta']!.map((l) => l.href)).toContain(`${base}/.well-known/mpp.json`);
    expect(rest['service-doc']!.map((l) => l.href)).toEqual([`${base}/docs`]);
    expect(context('/mcp')['service-desc']!.map((l) => l.href)).toEqual([`${base}/.well-known/mcp/server-card.json`]);
  });

  it('serves documentation with the price table and the terms the manifest links to', () => {
    const page = docsPage(testSite(true));
    expect(page).toContain('## Terms');
    expect(page).toMatch(/\| clips_youtube, worst-case card hold, charged for what is delivered \| - \| 4\.50 \|/);
    expect(page).toContain('find_clips 72 h');
  });
});
