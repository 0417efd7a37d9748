import { JOB_TYPES, type JobType, type Price } from '@cutroom/shared/job-types';
import { PRICES } from '@cutroom/shared/prices';
import { MCP_TOOLS, type ToolEntry } from '../mcp/catalog.ts';
import { JOB_TYPE_REGISTRY } from '../job-types/registry.ts';

/**
 * The parts of the docs that drift when written by hand, rendered from the tables in code: a
 * job type's facts (who runs it, how it is created, its input, prices, retention, outputs, work
 * kind, MCP tool) and the table of every type. `npm run docs` writes them between
 * `<!-- generated: NAME -->` and `<!-- /generated -->` in README.md and docs/; a test fails when a
 * region is stale (docs-current.test.ts).
 */

const usd = (cents: number) => `USD ${(cents / 100).toFixed(2)}`;
const priceText = (p: Price) =>
  p.chainUnits == null ? `${usd(p.cardCents)} (card only)` : `${usd(p.cardCents)} card / ${(p.chainUnits / 1e6).toFixed(2)} USDC`;

/** How a caller creates the type. */
function createdBy(type: JobType): string {
  const entry = JOB_TYPE_REGISTRY[type];
  if (entry.runner === 'composite') return entry.definition.restRoute ? `\`${entry.definition.restRoute}\`` : 'MCP only';
  if (JOB_TYPES[type].input.kind === 'upload') return '`POST /api/v1/jobs`, then its upload';
  return '`POST /api/v1/jobs`, then `POST /api/v1/jobs/{id}/process`';
}

function runnerText(type: JobType): string {
  const entry = JOB_TYPE_REGISTRY[type];
  if (entry.runner === 'agent') return `a render-agent (work kind \`${entry.definition.workKind}\`)`;
  if (entry.runner === 'coordinator') return 'the coordinator (a durable workflow)';
  return entry.definition.kind === 'bundle'
    ? 'its child jobs (a clip bundle: one clip job per clip)'
    : 'its child jobs (an agent product: find_clips, then the clips)';
}

function inputText(type: JobType): string {
  const input = JOB_TYPES[type].input;
  return input.kind === 'upload'
    ? `an upload: ${input.media.join(' or ')}`
    : `a completed job of your session: ${input.parentTypes.map((t) => `\`${t}\``).join(', ')} (\`source_job_id\`)`;
}

function pricesText(type: JobType): string {
  const pricing = JOB_TYPES[type].pricing;
  switch (pricing.by) {
    case 'media':
      return Object.entries(pricing.prices)
        .map(([media, p]) => `${media} ${priceText(p!)}`)
        .join('; ');
    case 'call':
      return `${priceText(pricing.price)} per job`;
    case 'item':
      return `${priceText(pricing.price)} per clip`;
    case 'hold':
      return `a hold of ${priceText(pricing.price)}; what was delivered is captured, the rest released`;
  }
}

function outputsText(type: JobType): string {
  const entry = JOB_TYPE_REGISTRY[type];
  if (entry.runner === 'agent') {
    const def = entry.definition;
    return def.roles
      .map((r) => {
        const file = def.files[r.file]!;
        const when = file.when ? ', when asked' : '';
        return `\`${r.role}\` (${file.contentType}${when})`;
      })
      .join(', ');
  }
  if (entry.runner === 'coordinator') return "`video` (the published video's watch URL)";
  return entry.definition.kind === 'bundle'
    ? "its children's, as `clip_N`, `subjects_N`, `transcript_N`"
    : '`clips` and `transcript` (its find_clips child), `clip_N`, `subjects_N`';
}

function mcpText(type: JobType): string {
  const tool = MCP_TOOLS.find((t) => t.name === type);
  return tool ? `\`${tool.name}\`` : 'none (REST only)';
}

/** One job type's facts, as a two-column table. */
export function typeFacts(type: JobType): string {
  const rows: [string, string][] = [
    ['Run by', runnerText(type)],
    ['Created with', createdBy(type)],
    ['Input', inputText(type)],
    ['Price', pricesText(type)],
    ['Outputs', outputsText(type)],
    ['Kept', `${JOB_TYPES[type].retentionHours} h after it ends`],
    ['MCP tool', mcpText(type)],
  ];
  return ['| | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
}

/** Every job type in one table, each linking its page (`docs/job-types/<type>.md`, relative to `base`). */
export function jobTypesTable(base: string): string {
  const types = Object.keys(JOB_TYPE_REGISTRY) as JobType[];
  const rows = types.map((t) => {
    const input = JOB_TYPES[t].input;
    const from = input.kind === 'upload' ? `upload (${input.media.join(' or ')})` : `parent job (${input.parentTypes.join(', ')})`;
    return `| [\`${t}\`](${base}${t}.md) | ${JOB_TYPES[t].summary} | ${from} | ${createdBy(t)} | ${mcpText(t)} |`;
  });
  return ['| job type | what it gives | input | created with | MCP tool |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** What a tool costs, in words. */
function toolPrice(tool: ToolEntry): string {
  const p = tool.price;
  switch (p.kind) {
    case 'free':
      return 'free';
    case 'job':
    case 'per_clip':
      return pricesText(p.jobType);
    case 'hold':
      return pricesText(p.product);
    case 'smoke_test':
      return `${((PRICES.smoke_test.chainUnits ?? 0) / 1e6).toFixed(2)} USDC (chain only: below the card minimum)`;
  }
}

/** Every MCP tool (mcp/catalog.ts) in the order tools/list gives them: name, title, price. */
export function mcpToolsTable(): string {
  const rows = MCP_TOOLS.map((t) => `| \`${t.name}\` | ${t.title} | ${toolPrice(t)} |`);
  return ['| tool | what it does | price |', '| --- | --- | --- |', ...rows].join('\n');
}

const REGION = /<!-- generated: ([\w-]+) -->\n[\s\S]*?<!-- \/generated -->/g;

/**
 * A Markdown file with its generated regions rendered again. `path` is relative to the repository
 * root: `facts` takes the type from a `docs/job-types/<type>.md` path; `job-types` links pages
 * relative to the file.
 */
export function renderGenerated(path: string, text: string): string {
  return text.replace(REGION, (_, name: string) => {
    let body: string;
    if (name === 'facts') {
      const type = /docs\/job-types\/([a-z_]+)\.md$/.exec(path)?.[1];
      if (!type || !(type in JOB_TYPE_REGISTRY)) throw new Error(`${path}: a facts region outside docs/job-types/<type>.md`);
      body = typeFacts(type as JobType);
    } else if (name === 'job-types') {
      body = jobTypesTable(path.startsWith('docs/job-types/') ? '' : path.startsWith('docs/') ? 'job-types/' : 'docs/job-types/');
    } else if (name === 'mcp-tools') {
      body = mcpToolsTable();
    } else {
      throw new Error(`${path}: unknown generated region ${name}`);
    }
    return `<!-- generated: ${name} -->\n${body}\n<!-- /generated -->`;
  });
}
