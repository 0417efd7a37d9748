import type { JobType } from '../job-types.ts';
import type { JobContract, OutputSpec } from './contract.ts';
import { editFromTranscriptContract } from './edit-from-transcript.ts';
import { extractClipContract } from './extract-clip.ts';
import { extractVerticalClipContract } from './extract-vertical-clip.ts';
import { findClipsContract } from './find-clips.ts';
import { summarizeContract } from './summarize.ts';
import { transcribeContract } from './transcribe.ts';

/**
 * The contract of every job type agents run, one module each (./<type>.ts): its work kind, the
 * params its assignment carries, what its completion reports and the files it writes. Proto's
 * Assignment and CompleteRequest variants, the coordinator's definitions (workKind, files) and
 * the agent's pipelines (kind, writes) are built from or typed against this table. Bundles,
 * agent products and coordinator-run types (publish_video) have none: no agent runs them.
 */
export const JOB_CONTRACTS = {
  transcribe: transcribeContract,
  extract_clip: extractClipContract,
  extract_vertical_clip: extractVerticalClipContract,
  find_clips: findClipsContract,
  summarize: summarizeContract,
  edit_from_transcript: editFromTranscriptContract,
} as const satisfies { readonly [T in JobType]?: JobContract<T> };

/** The job types agents run: those with a contract. */
export type AgentJobType = keyof typeof JOB_CONTRACTS;
export type JobContractOf<T extends AgentJobType> = (typeof JOB_CONTRACTS)[T];
/** The output names a type's contract declares. */
export type OutputNameOf<T extends AgentJobType> = keyof JobContractOf<T>['outputs'] & string;

/** The agent-run job types, in JOB_CONTRACTS' order (proto's unions keep it). */
export const AGENT_JOB_TYPES = Object.keys(JOB_CONTRACTS) as AgentJobType[];

export type { JobContract, OutputSpec };
