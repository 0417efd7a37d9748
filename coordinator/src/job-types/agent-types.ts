import type { WorkKind } from '@cutroom/proto';
import type { JobType } from '@cutroom/shared/job-types';
import type { JobTypeDefinition } from './definition.ts';
import { editFromTranscript } from './edit-from-transcript.ts';
import { extractClip } from './extract-clip.ts';
import { extractVerticalClip } from './extract-vertical-clip.ts';
import { findClipsJob } from './find-clips.ts';
import { summarizeJob } from './summarize.ts';
import { transcribe } from './transcribe.ts';

/**
 * Every job type this build runs on agents, one definition each: the `agent` entries of the one
 * job-type registry (registry.ts), kept apart so that what starts agent work (composites' children,
 * wake-ups, claims) does not import the composites that import it.
 */
export const JOB_TYPE_DEFINITIONS: Readonly<Partial<Record<JobType, JobTypeDefinition>>> = {
  transcribe: register(transcribe),
  extract_clip: register(extractClip),
  extract_vertical_clip: register(extractVerticalClip),
  find_clips: register(findClipsJob),
  summarize: register(summarizeJob),
  edit_from_transcript: register(editFromTranscript),
};

/**
 * Widens a definition to the registry's type. Its variant-typed hooks (buildAssignment, completion)
 * are only ever called for jobs of its own type: completion checks `job_type` first.
 */
function register<T extends JobType>(def: JobTypeDefinition<T>): JobTypeDefinition {
  return def as unknown as JobTypeDefinition;
}

/** The definition of a type agents run, or null for the rest (bundles, products, coordinator-run types): what claims ask. */
export function agentDefinitionOf(type: string): JobTypeDefinition | null {
  return JOB_TYPE_DEFINITIONS[type as JobType] ?? null;
}

/** The definition of a stored job's type that agents run. Any other type here is a programming error. */
export function definitionOf(type: string): JobTypeDefinition {
  const def = JOB_TYPE_DEFINITIONS[type as JobType];
  if (!def) throw new Error(`no agent job type definition for ${type}`);
  return def;
}

/** The types agents run (for passes that touch only agent work: wake-ups). */
export const agentRunTypes = (): JobType[] => Object.keys(JOB_TYPE_DEFINITIONS) as JobType[];

export const workKindOf = (type: string): WorkKind => definitionOf(type).workKind;
