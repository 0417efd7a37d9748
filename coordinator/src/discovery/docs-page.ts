import { availableJobTypes, JOB_TYPES } from '@cutroom/shared/job-types';
import { priceTable } from '../payments/discovery.ts';
import { interfacesText, offers } from './offers.ts';
import { PATHS, type Site, url } from './site.ts';

/**
 * GET /docs: the human documentation the other documents link to (api-catalog service-doc, agent
 * card documentationUrl, ai-plugin legal_info_url → #terms), as Markdown generated from the same
 * tables: price table, offers, retention hours. DOCS_URL / LEGAL_INFO_URL point elsewhere when set.
 */
export function docsPage(site: Site): string {
  const u = (p: string) => url(site, p);
  const prices = priceTable().map((r) => {
    const what = [r.product, r.media, r.unit].filter(Boolean).join(', ');
    return `| ${what} | ${r.chain?.display ?? '-'} | ${r.card?.display ?? '-'} | ${r.note ?? ''} |`;
  });
  const retention = availableJobTypes().map((t) => `${t} ${JOB_TYPES[t].retentionHours} h`);
  return [
    '# cutroom',
    '',
    'Pay-per-job audio/video post-production for API callers and AI agents. No account: create a session (or pay with a payment credential), create a job, pay, upload, poll, download.',
    '',
    '## Start here',
    '',
    `- REST API: ${u(PATHS.rest)}, described by ${u(PATHS.openapi)} (OpenAPI 3.1).`,
    `- MCP endpoint: ${u(PATHS.mcp)} (Streamable HTTP, stateless), described by ${u(PATHS.mcpServerCard)}.`,
    '- For clips from a video start with find_clips: it includes the transcript (do not run transcribe first); then cut its candidates naming it as source_job_id, without re-uploading.',
    `- Discovery: ${[PATHS.apiCatalog, PATHS.agentCard, PATHS.aiPlugin, PATHS.mcpServerCard, PATHS.mpp, PATHS.openapi].map(u).join(', ')}.`,
    '',
    '## What you can buy',
    '',
    ...offers().map((o) => `- **${o.id}**: ${o.tool.title}. ${interfacesText(o, site.base)}`),
    '',
    '## Prices',
    '',
    `Billing is ${site.billing} on this deployment${site.billing === 'disabled' ? ' (every job is created already paid)' : `; rails: ${site.rails.join(', ')}`}.`,
    '',
    '| product | chain (USDC) | card (USD) | note |',
    '| --- | ---: | ---: | --- |',
    ...prices,
    '',
    '## Terms',
    '',
    '- Jobs are paid before they run (clips_from_video and clips_youtube place a card hold and charge only what was delivered); a job that fails is refunded automatically (a failed clip of a bundle: its share).',
    `- Sources and outputs are kept for a limited time after completion, then deleted: ${retention.join(', ')}. DELETE /api/v1/jobs/{id}/source and DELETE /api/v1/jobs/{id}/outputs/{role} delete them earlier.`,
    '- Session tokens are bearer credentials: whoever holds one can read and delete the jobs of its session.',
    `- Contact: ${site.contactEmail}. Provider: ${site.provider.organization} (${site.provider.url}).`,
    '',
  ].join('\n');
}
