import { JOB_TYPES, JobType, type JobTypeFacts } from '@cutroom/shared/job-types';
import { COMPOSITE_DEFINITIONS } from '../composites/index.ts';
import { subscribeChildEnded } from '../jobs/job-ended.ts';
import { JOB_TYPE_DEFINITIONS } from './agent-types.ts';
import { COORDINATOR_RUN_DEFINITIONS } from './coordinator-run.ts';
import type { CompositeDefinition, JobTypeEntry } from './entry.ts';

/**
 * The one job-type registry: every member of shared's JobType enum, by who runs it (entry.ts):
 * the agent-run definitions (agent-types.ts), the coordinator-run ones (coordinator-run.ts) and
 * the composites (composites/index.ts). Everything that differs by type asks its entry
 * (lifecycle.ts): nothing outside job-types/ and composites/ tests a type by name. A type with no
 * definition, or with two, fails here when the coordinator loads.
 */
export const JOB_TYPE_REGISTRY: Readonly<Record<JobType, JobTypeEntry>> = Object.fromEntries(JobType.options.map((type) => [type, entryFor(type)])) as Record<
  JobType,
  JobTypeEntry
>;

function entryFor(type: JobType): JobTypeEntry {
  const found: JobTypeEntry[] = [];
  const agent = JOB_TYPE_DEFINITIONS[type];
  if (agent) found.push({ runner: 'agent', type, definition: agent });
  const run = COORDINATOR_RUN_DEFINITIONS[type];
  if (run) found.push({ runner: 'coordinator', type, definition: run });
  const composite = COMPOSITE_DEFINITIONS[type];
  if (composite) found.push({ runner: 'composite', type, definition: composite });
  if (found.length !== 1) throw new Error(`job type ${type} has ${found.length} definitions (agent, coordinator or composite): it needs exactly one`);
  return found[0]!;
}

// Composites hear of their children's ends in the transaction that ends them (jobs/job-ended.ts).
for (const c of Object.values(COMPOSITE_DEFINITIONS)) subscribeChildEnded(c.type, c.childEnded);

/** The entry of a stored or requested type. An unknown type is a programming error (the enum is checked at the edges). */
export function entryOf(type: string): JobTypeEntry {
  const entry = JOB_TYPE_REGISTRY[type as JobType];
  if (!entry) throw new Error(`unknown job type ${type}`);
  return entry;
}

/** Input, prices, retention and availability of a type (shared's JOB_TYPES). */
export const factsOf = (type: string): JobTypeFacts => JOB_TYPES[entryOf(type).type];

/** The composite definition of a type, or null when it is not one. */
export function compositeEntryOf(type: string): CompositeDefinition | null {
  const entry = entryOf(type);
  return entry.runner === 'composite' ? entry.definition : null;
}

/**
 * Job types by how a caller creates them, from the registry (what the OpenAPI descriptions and the
 * docs name, so neither lists types by hand): uploads and derivatives at POST /jobs; composites
 * elsewhere (a bundle at POST /jobs/{id}/derivatives, an agent product by its MCP tool).
 */
export function typesByCreation(): { uploads: JobType[]; derivatives: JobType[]; elsewhere: JobType[]; mcpOnly: JobType[] } {
  const entries = Object.values(JOB_TYPE_REGISTRY);
  const direct = entries.filter((e) => e.runner !== 'composite');
  return {
    uploads: direct.filter((e) => JOB_TYPES[e.type].input.kind === 'upload').map((e) => e.type),
    derivatives: direct.filter((e) => JOB_TYPES[e.type].input.kind === 'parent').map((e) => e.type),
    elsewhere: entries.filter((e) => e.runner === 'composite').map((e) => e.type),
    mcpOnly: entries.flatMap((e) => (e.runner === 'composite' && !e.definition.restRoute ? [e.type] : [])),
  };
}
