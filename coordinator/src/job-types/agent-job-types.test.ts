import { describe, expect, it } from 'vitest';
import { PIPELINES } from '@cutroom/render-agent/pipelines/registry';
import { type AgentJobType, JOB_CONTRACTS } from '@cutroom/shared/contracts/index';
import { JobType } from '@cutroom/shared/job-types';
import { MCP_TOOLS } from '../mcp/catalog.ts';
import { TOOL_HANDLERS } from '../mcp/tools/index.ts';
import { priceTable } from '../payments/discovery.ts';
import { JOB_TYPE_REGISTRY } from './registry.ts';
import { EXTENSIONS } from '../jobs/job-view.ts';
import { JOB_TYPE_DEFINITIONS } from './agent-types.ts';

/**
 * The guard over every job type agents run: each one has, and agrees with, all of its parts.
 * A type of shared's JobType enum runs on an agent unless it is a bundle, an agent product or
 * coordinator-run (publish_video).
 */
const AGENT_RUN = JobType.options.filter((t) => JOB_TYPE_REGISTRY[t].runner === 'agent');

describe('every agent-run job type', () => {
  it('has a contract (shared/src/contracts/), and every contract is an agent-run type', () => {
    expect(Object.keys(JOB_CONTRACTS).sort()).toEqual([...AGENT_RUN].sort());
  });

  it.each(AGENT_RUN)('%s: its coordinator definition takes the work kind and files of its contract', (type) => {
    const contract = JOB_CONTRACTS[type as AgentJobType];
    const def = JOB_TYPE_DEFINITIONS[type];
    expect(def, `${type}: no entry in coordinator/src/job-types/agent-types.ts`).toBeDefined();
    expect(def!.workKind).toBe(contract.workKind);
    // In the contract's order: the assignment's outputs keep it.
    expect(Object.keys(def!.files)).toEqual(Object.keys(contract.outputs));
    for (const [name, spec] of Object.entries(contract.outputs)) {
      const file = def!.files[name]!;
      expect(file.contentType, `${type}.${name}`).toBe(spec.contentType);
      expect(file.schema, `${type}.${name}: the contract's schema`).toBe('schema' in spec ? spec.schema : undefined);
      expect(file.when !== undefined, `${type}.${name}: a 'when' iff the contract says optional`).toBe('isOptional' in spec);
    }
  });

  it.each(AGENT_RUN)('%s: its agent pipeline pulls the contract’s work kind and writes exactly the contract’s outputs', (type) => {
    const contract = JOB_CONTRACTS[type as AgentJobType];
    const pipeline = PIPELINES[type as AgentJobType];
    expect(pipeline, `${type}: no entry in render-agent/src/pipelines/registry.ts`).toBeDefined();
    expect(pipeline.kind).toBe(contract.workKind);
    expect(Object.keys(pipeline.writes).sort()).toEqual(Object.keys(contract.outputs).sort());
  });

  it.each(AGENT_RUN)('%s: every output downloads under a proper extension (not .bin)', (type) => {
    for (const [name, spec] of Object.entries(JOB_CONTRACTS[type as AgentJobType].outputs)) {
      expect(EXTENSIONS[spec.contentType], `${type}.${name}: no extension for ${spec.contentType} in coordinator/src/jobs/job-view.ts`).toBeDefined();
    }
  });

  it.each(AGENT_RUN)('%s: is sold, with a row in the discovery price table', (type) => {
    expect(priceTable().filter((row) => row.product === type).length, type).toBeGreaterThan(0);
  });

  it.each(AGENT_RUN)('%s: has the MCP tool its definition describes (named and priced as it, with a handler), or none when it says why', (type) => {
    const mcp = JOB_TYPE_DEFINITIONS[type]!.mcp;
    const tool = MCP_TOOLS.find((t) => t.price.kind === 'job' && t.price.jobType === type);
    if ('none' in mcp) {
      expect(mcp.none.length, `${type}: an opt-out says why`).toBeGreaterThan(20);
      expect(tool, `${type} opts out of MCP (${mcp.none}) but has a tool`).toBeUndefined();
      expect(TOOL_HANDLERS[type]).toBeUndefined();
      return;
    }
    expect(tool).toMatchObject({ name: type, title: mcp.title, limit: 'job_create' });
    expect(tool!.description.startsWith(mcp.description)).toBe(true);
    for (const field of mcp.required) expect(tool!.input.shape[field]?.isOptional(), `${type}.${field} required over MCP`).toBe(false);
    expect(TOOL_HANDLERS[type], `${type}: no handler (coordinator/src/mcp/tools/index.ts builds them from the definitions)`).toBeDefined();
  });
});

/** Job types of any runner deliberately offered without an MCP tool named after them, and why. */
const MCP_OPT_OUT_ANY: Partial<Record<JobType, string>> = {
  publish_video: 'publishing needs the caller to connect a video host account in a browser (OAuth consent); it is offered over REST only',
};

describe('every job type, whatever runs it', () => {
  it.each(JobType.options)('%s: is sold, with a row in the discovery price table', (type) => {
    expect(priceTable().filter((row) => row.product === type).length, type).toBeGreaterThan(0);
  });

  it.each(JobType.options)('%s: has an MCP tool named after it, unless it opts out', (type) => {
    const tool = MCP_TOOLS.find((t) => t.name === type);
    if (type in MCP_OPT_OUT_ANY) {
      expect(tool, `${type} opts out of MCP (${MCP_OPT_OUT_ANY[type]}) but has a tool`).toBeUndefined();
      return;
    }
    expect(tool, `${type}: no MCP tool of that name (coordinator/src/mcp/catalog.ts), nor an opt-out`).toBeDefined();
    expect(TOOL_HANDLERS[type], `${type}: no handler in coordinator/src/mcp/tools/index.ts`).toBeDefined();
  });
});
