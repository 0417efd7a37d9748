import { describe, expect, it } from 'vitest';
import { jobTypesTable, mcpToolsTable, renderGenerated, typeFacts } from './type-facts.ts';

describe('the generated docs', () => {
  it("render a job type's facts from the registry, JOB_TYPES and its contract", () => {
    const facts = typeFacts('transcribe');
    expect(facts).toContain('| Run by | a render-agent (work kind `transcribe`) |');
    expect(facts).toContain('| Created with | `POST /api/v1/jobs`, then its upload |');
    expect(facts).toContain('| Price | audio USD 0.50 card / 0.20 USDC; video USD 1.00 card / 0.70 USDC |');
    expect(facts).toContain('`transcript` (application/x-subrip)');
    expect(facts).toContain('| Kept | 24 h after it ends |');
    expect(typeFacts('extract_clip')).toContain('then `POST /api/v1/jobs/{id}/process`');
    expect(typeFacts('publish_video')).toContain('| MCP tool | none (REST only) |');
    expect(typeFacts('clips_vertical')).toContain('`POST /api/v1/jobs/{parent_job_id}/derivatives`');
    expect(typeFacts('clips_from_video')).toMatch(/Created with \| MCP only[\s\S]*a hold of USD 4\.50 \(card only\)/);
  });

  it('link each type of the table relative to the page it is on', () => {
    expect(jobTypesTable('docs/job-types/')).toContain('[`find_clips`](docs/job-types/find_clips.md)');
    expect(renderGenerated('docs/api.md', '<!-- generated: job-types -->\n<!-- /generated -->')).toContain('(job-types/find_clips.md)');
    expect(mcpToolsTable()).toContain('| `mpp_smoke_test` | Payment smoke test | 0.01 USDC (chain only: below the card minimum) |');
  });

  it('refuse a region they do not know, or facts outside a job type page', () => {
    expect(() => renderGenerated('README.md', '<!-- generated: nope -->\n<!-- /generated -->')).toThrow(/unknown generated region nope/);
    expect(() => renderGenerated('docs/api.md', '<!-- generated: facts -->\n<!-- /generated -->')).toThrow(/outside docs\/job-types/);
  });
});
