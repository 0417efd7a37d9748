import type { WorkKind } from '@cutroom/proto';
import { isBundleJobType } from '@cutroom/shared/bundles';
import { availableJobTypes, type JobType, JOB_TYPES } from '@cutroom/shared/job-types';
import { isAgentProduct, type AgentProduct } from '@cutroom/shared/products';
import { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';
import { editFromTranscript } from './edit-from-transcript.ts';
import { extractClip } from './extract-clip.ts';
import { extractVerticalClip } from './extract-vertical-clip.ts';
import { findClipsJob } from './find-clips.ts';
import { summarizeJob } from './summarize.ts';
import { transcribe } from './transcribe.ts';

/**
 * Every job type this build runs on agents, one definition each. A type listed here must be
 * `available` in shared's JOB_TYPES and vice versa (registry.test.ts checks both ways), except the
 * clip bundles (clips_vertical, clips_horizontal) and the agent products (clips_from_video,
 * clips_youtube): they run no agent work of their own, their children are find_clips,
 * extract_vertical_clip and extract_clip jobs (jobs/create-bundle.ts, jobs/products/).
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

/** The definition of a type a caller asked for: 400 naming the ones available when it is not built yet. */
export function definitionFor(type: JobType): JobTypeDefinition {
  if (isBundleJobType(type)) throw bundleRefusal(type);
  if (isAgentProduct(type)) throw productRefusal(type);
  const def = JOB_TYPE_DEFINITIONS[type];
  if (!def || !JOB_TYPES[type].available) {
    throw new AppError('not_implemented_job_type', `job_type ${type} is not available yet; this service currently runs: ${availableJobTypes().join(', ')}`);
  }
  return def;
}

/** The definition of a stored job's type. A stored job of an unknown type is a programming error. */
export function definitionOf(type: string): JobTypeDefinition {
  if (isBundleJobType(type)) throw bundleRefusal(type);
  if (isAgentProduct(type)) throw productRefusal(type);
  const def = JOB_TYPE_DEFINITIONS[type as JobType];
  if (!def) throw new Error(`no job type definition for ${type}`);
  return def;
}

export const workKindOf = (type: string): WorkKind => definitionOf(type).workKind;

/** A bundle is no job an agent runs: created by the derivatives call, paid by its checkout, started when paid. */
function bundleRefusal(type: 'clips_vertical' | 'clips_horizontal'): AppError {
  return new AppError(
    'wrong_endpoint',
    type === 'clips_vertical'
      ? 'clips_vertical is a clip bundle: create it from a find_clips job with POST /jobs/{parent_job_id}/derivatives (job_type, clips); it is paid by its hosted card checkout and its clips start by themselves'
      : 'clips_horizontal is a clip bundle offered through the MCP tool; over REST, cut 16:9 clips with extract_clip',
  );
}

/** A product is no job an agent runs either: created by its MCP tool, its steps are its children (jobs/products/). */
function productRefusal(type: AgentProduct): AppError {
  return new AppError(
    'wrong_endpoint',
    `${type} is an agent product offered through the MCP tool of that name (a card hold, then find_clips and its clips); over REST, run find_clips and cut its candidates with clips_vertical or extract_clip`,
  );
}
