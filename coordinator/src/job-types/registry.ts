import type { WorkKind } from '@cutroom/proto';
import { availableJobTypes, type JobType, JOB_TYPES } from '@cutroom/shared/job-types';
import { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';
import { extractClip } from './extract-clip.ts';
import { extractVerticalClip } from './extract-vertical-clip.ts';
import { findClipsJob } from './find-clips.ts';
import { transcribe } from './transcribe.ts';

/**
 * Every job type this build runs, one definition each. A type listed here must be `available`
 * in shared's JOB_TYPES and vice versa (registry.test.ts checks both ways).
 */
export const JOB_TYPE_DEFINITIONS: Readonly<Partial<Record<JobType, JobTypeDefinition>>> = {
  transcribe: register(transcribe),
  extract_clip: register(extractClip),
  extract_vertical_clip: register(extractVerticalClip),
  find_clips: register(findClipsJob),
};

/**
 * Widens a definition to the registry's type. Its variant-typed hooks (buildAssignment, completion)
 * are only ever called for jobs of its own type: completion checks `job_type` first.
 */
function register<T extends JobType>(def: JobTypeDefinition<T>): JobTypeDefinition {
  return def as unknown as JobTypeDefinition;
}

/** The definition of a type a caller asked for: 400 naming the ones available when it is not built yet. */
export function definitionFor(type: JobType): JobTypeDefinition {
  const def = JOB_TYPE_DEFINITIONS[type];
  if (!def || !JOB_TYPES[type].available) {
    throw new AppError('not_implemented_job_type', `job_type ${type} is not available yet; this service currently runs: ${availableJobTypes().join(', ')}`);
  }
  return def;
}

/** The definition of a stored job's type. A stored job of an unknown type is a programming error. */
export function definitionOf(type: string): JobTypeDefinition {
  const def = JOB_TYPE_DEFINITIONS[type as JobType];
  if (!def) throw new Error(`no job type definition for ${type}`);
  return def;
}

export const workKindOf = (type: string): WorkKind => definitionOf(type).workKind;
