import type { z } from 'zod';
import type { Assignment, CompleteRequest, MediaInfo, SourceRef, WorkKind } from '@cutroom/proto';
import type { CreateJobRequest } from '@cutroom/shared/api';
import type { FailureCode } from '@cutroom/shared/failures';
import type { AgentJobType, JobContractOf, OutputNameOf } from '@cutroom/shared/contracts/index';
import type { ActiveStatus, JobType, JobTypeFacts, Price } from '@cutroom/shared/job-types';
import type { MediaKind } from '@cutroom/shared/media-types';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { CoordinatorConfig } from '../config.ts';
import type { JobPatch, JobRow } from '../db/schema.ts';
import type { ParentMedia } from '../jobs/parent-source.ts';

/** What a valid create request becomes on the job row. */
export interface PreparedJob {
  originalFilename: string;
  contentType: string;
  /** Declared media kind (uploads), re-checked against the probe; null for parent-based jobs. */
  mediaKind: MediaKind | null;
  price: Price;
  /** Validated request fields the pipeline needs, stored as jobs.params. */
  params: Record<string, unknown>;
}

/** One file an attempt writes, under `jobs/<id>/outputs/<attempt_id>/<name>` (its own folder: jobs/job-access.ts). */
export interface OutputFile {
  contentType: string;
  /** When set, the file is JSON that must match this schema before the job completes. */
  schema?: z.ZodType;
  /** When set, the file is written only for jobs where this holds (e.g. the transcript of a cut the caller asked for). */
  when?: (job: JobRow) => boolean;
}

/** How written files become the job's outputs (spec JobOutput): one row per role. `N`: the type's output names. */
export interface OutputRole<N extends string = string> {
  role: string;
  /** The file the role's download_url serves. */
  file: N;
  /** Other files of the role, by meta key (e.g. the words JSON beside the SRT). */
  meta?: Record<string, N>;
}

/**
 * What an agent-run type's definition takes from its contract (shared/src/contracts/): its work
 * kind, and files and roles under its contract's output names only. The registry's widened view
 * (`JobTypeDefinition` of any type) reads them as plain strings.
 */
type ContractWorkKind<T extends JobType> = [T] extends [AgentJobType] ? JobContractOf<T & AgentJobType>['workKind'] : WorkKind;
type ContractFiles<T extends JobType> = [T] extends [AgentJobType]
  ? { readonly [N in OutputNameOf<T & AgentJobType>]: OutputFile }
  : Readonly<Record<string, OutputFile>>;
type ContractRole<T extends JobType> = [T] extends [AgentJobType] ? OutputRole<OutputNameOf<T & AgentJobType>> : OutputRole;

/** The parent of a derivative as prepare() sees it: the row, its probe, and the output roles it still has. */
export interface ParentView {
  job: JobRow;
  media: ParentMedia;
  roles: readonly string[];
  /**
   * The parent's transcript v2, read from storage only for types with `needsParentTranscript`
   * (undefined for the others); null when the parent no longer has one.
   */
  transcript?: TranscriptV2 | null;
}

/** What an assignment reads besides its own job: the source, and for derivatives the parent's transcript. */
export interface AssignmentInputs {
  source: SourceRef;
  /** Presigned GET of the parent's transcript v2 (words), or null (no parent, or it has none). */
  parentWordsUrl: string | null;
}

/** What a claim knows when it builds an assignment: the parts every variant shares. */
export interface AssignmentBase {
  v: 1;
  job_id: string;
  attempt_id: string;
  kind: WorkKind;
  lease_ms: number;
  outputs: Assignment['outputs'];
}

/**
 * What an agent reads to choose a job type's MCP tool. The catalog appends what every upload tool
 * or every cut says (how to upload or wait, how to pay) and takes the input schema from `request`.
 */
export interface McpToolText {
  title: string;
  description: string;
  /** Request fields the tool requires though REST leaves them optional (REST answers a 400 naming them instead). */
  required: readonly string[];
  /** Where it is listed among the tools of its input kind (lower first): agents read the list top down. */
  rank: number;
}

/**
 * Everything about one job type that the coordinator needs, in one place. REST, MCP, tRPC, the
 * claim, the sweeper and completion all read it; adding a job type means writing one of these
 * on top of its contract (shared/src/contracts/), plus its agent pipeline. See ARCHITECTURE.md,
 * "Adding a job type".
 */
export interface JobTypeDefinition<T extends JobType = JobType> {
  type: T;
  /** Input kind, parents, price keys, retention, availability (shared/src/job-types.ts). */
  facts: JobTypeFacts;
  /** Its MCP tool, named as the type (mcp/catalog.ts builds the entry and its handler from this), or why it has none. */
  mcp: McpToolText | { none: string };
  /**
   * The CreateJobRequest fields this type accepts besides job_type, as a strict schema (from the
   * same zod schema REST validates with): a field of another type is a 400, not ignored.
   */
  request: z.ZodObject;
  /**
   * Checks what the schema cannot (content type accepted, segments inside the parent, …) and
   * builds the job row's fields. `parent` is the job named by source_job_id for parent-based types
   * (already checked: the caller's, completed, source held, not expired, an allowed type), else null.
   */
  prepare(req: CreateJobRequest, parent: ParentView | null): PreparedJob;
  /**
   * prepare() checks the request against the parent's transcript (edit_from_transcript: the edit
   * must be the parent's words), so creation reads it from storage into `ParentView.transcript`
   * first: a refused request costs nothing because nothing is paid before prepare() accepts it.
   */
  needsParentTranscript?: boolean;
  /** Said instead of the generic "does not apply" when a caller sends one of these fields (what to send instead). */
  fieldHints?: Readonly<Record<string, string>>;
  /**
   * The JetStream work kind whose consumers serve it: its contract's (which kinds an agent
   * announces is the agent's to decide, from what its pipelines need: render-agent/src/pipelines/registry.ts).
   */
  workKind: ContractWorkKind<T>;
  /** The spec statuses it moves through while an agent works on it; stages[0] is where it queues. */
  stages: readonly [ActiveStatus, ...ActiveStatus[]];
  /** Files an attempt writes, by name: its contract's outputs (`outputFiles()`, ./contract-files.ts), each optional one with its `when`. */
  files: ContractFiles<T>;
  roles: readonly ContractRole<T>[];
  /** The type's assignment variant, from the shared parts and the stored job. */
  buildAssignment(base: AssignmentBase, job: JobRow, inputs: AssignmentInputs, config: CoordinatorConfig): Extract<Assignment, { job_type: T }>;
  /**
   * A stage report carries the probe: a failure here (e.g. a video priced as audio) ends the job
   * before the expensive stage runs. Null when the media is what was paid for.
   */
  checkMedia(job: JobRow, media: MediaInfo): { code: FailureCode; message: string } | null;
  /** Columns a completed attempt sets on the job (duration, probe, …) besides status and retention. */
  completion(job: JobRow, req: Extract<CompleteRequest, { job_type: T }>): JobPatch;
}

/** The files a job's attempts write: every file of its type that applies to it (OutputFile.when). */
export function filesOf(def: JobTypeDefinition, job: JobRow): [string, OutputFile][] {
  return Object.entries(def.files).filter(([, f]) => !f.when || f.when(job));
}

/** The output roles a completed job has: those whose file it wrote. */
export function rolesOf(def: JobTypeDefinition, job: JobRow): OutputRole[] {
  const written = new Set(filesOf(def, job).map(([name]) => name));
  return def.roles.filter((r) => written.has(r.file));
}
