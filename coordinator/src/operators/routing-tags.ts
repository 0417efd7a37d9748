import { JobType } from '@cutroom/shared/job-types';
import { WORK_KINDS } from '@cutroom/proto';

/** ROUTING_TAGS parsed: the tags an agent needs, per work kind and per job type. */
export type RoutingTags = Readonly<Record<string, readonly string[]>>;

/** A tag: what an operator types in the console or at enrollment (`gpu`, `region-eu`, `pool:a`). */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9:._-]{0,62}$/;

/** `cut=gpu;transcribe=region-eu,pool-a` → {cut: [gpu], transcribe: [region-eu, pool-a]}; throws on a bad entry. */
export function parseRoutingTags(text: string): RoutingTags {
  const out: Record<string, string[]> = {};
  for (const entry of text.split(';').map((e) => e.trim())) {
    if (!entry) continue;
    const eq = entry.indexOf('=');
    if (eq < 1) throw new Error(`ROUTING_TAGS entry "${entry}" is not <kind or job type>=<tag>,<tag>`);
    const key = entry.slice(0, eq).trim();
    if (!(WORK_KINDS as readonly string[]).includes(key) && !JobType.safeParse(key).success)
      throw new Error(`ROUTING_TAGS: "${key}" is neither a work kind (${WORK_KINDS.join(', ')}) nor a job type`);
    const tags = entry
      .slice(eq + 1)
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    for (const t of tags) if (!TAG_PATTERN.test(t)) throw new Error(`ROUTING_TAGS: tag "${t}" must match ${TAG_PATTERN}`);
    out[key] = [...new Set([...(out[key] ?? []), ...tags])];
  }
  return out;
}

/** Tags a job needs of the agent that runs it: its kind's, plus its type's own. */
export function requiredTags(routing: RoutingTags, kind: string, jobType: string): string[] {
  return [...new Set([...(routing[kind] ?? []), ...(routing[jobType] ?? [])])].sort();
}

/** The tags of `required` that `agentTags` lacks (empty: the agent may take the job). */
export function missingTags(required: readonly string[], agentTags: readonly string[]): string[] {
  return required.filter((t) => !agentTags.includes(t));
}
