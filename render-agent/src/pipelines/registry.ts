import type { WorkKind } from '@cutroom/proto';
import type { HostFacts } from '../capabilities/requirements.ts';
import type { AgentConfig } from '../config.ts';
import type { AssignedJobType, Pipeline, PipelineNeeds, PipelineRegistry } from './pipeline.ts';
import { editFromTranscriptPipeline } from './edit-from-transcript.ts';
import { extractClipPipeline } from './extract-clip.ts';
import { extractVerticalClipPipeline } from './extract-vertical-clip.ts';
import { findClipsPipeline } from './find-clips.ts';
import { summarizePipeline } from './summarize.ts';
import { transcribePipeline } from './transcribe.ts';

/**
 * Every job type this agent runs. Adding one: its pipeline file (its kind and `writes` typed
 * against the type's contract, shared/src/contracts/), one entry here, its tests. The type demands
 * an entry for every proto Assignment variant (one per contract), and from here follow the kinds
 * the agent announces and pulls (servableKinds) and the dispatch of a claimed assignment (pipelineFor).
 */
export const PIPELINES: PipelineRegistry = {
  transcribe: transcribePipeline,
  extract_clip: extractClipPipeline,
  extract_vertical_clip: extractVerticalClipPipeline,
  find_clips: findClipsPipeline,
  summarize: summarizePipeline,
  edit_from_transcript: editFromTranscriptPipeline,
};

/**
 * The pipeline for a job type, typed to take that type's assignment. Generic so that
 * `pipelineFor(registry, a.job_type).run(a, …)` type-checks for any Assignment without a switch.
 */
export function pipelineFor<T extends AssignedJobType>(registry: PipelineRegistry, jobType: T): Pipeline<T> {
  return registry[jobType];
}

export interface ServableKinds {
  /** Kinds to announce and pull, in registry order. */
  kinds: WorkKind[];
  /** For each kind not served, what is missing (one line each, no repeats). */
  missing: Partial<Record<WorkKind, string[]>>;
}

/**
 * Which work kinds this host serves. A kind is served only when every pipeline behind it can
 * run here: a claim on that kind's wake-up may hand over any of its job types, and the agent
 * cannot pick.
 */
export function servableKinds(pipelines: Iterable<PipelineNeeds>, host: HostFacts, config: AgentConfig): ServableKinds {
  const gaps = new Map<WorkKind, Set<string>>();
  for (const p of pipelines) {
    const lines = gaps.get(p.kind) ?? new Set<string>();
    for (const line of p.missing(host, config)) lines.add(line);
    gaps.set(p.kind, lines);
  }
  const kinds: WorkKind[] = [];
  const missing: Partial<Record<WorkKind, string[]>> = {};
  for (const [kind, lines] of gaps) {
    if (lines.size === 0) kinds.push(kind);
    else missing[kind] = [...lines];
  }
  return { kinds, missing };
}
