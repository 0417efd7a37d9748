import type { z } from 'zod';
import type { JobType } from '../job-types.ts';
import type { WorkKindName } from './work-kinds.ts';

/** One file an attempt writes, by name: what the coordinator and the agent agree on about it. */
export interface OutputSpec {
  contentType: string;
  /** The file is JSON that must match this schema (the coordinator checks it at completion). */
  schema?: z.ZodType;
  /**
   * Written only when the assignment names it: the coordinator decides per job which optional
   * files it asks for (its definition says when), and the agent writes what it is asked.
   */
  isOptional?: true;
}

/**
 * What the coordinator and the agent must agree on about one agent-run job type, declared once:
 * proto's Assignment and CompleteRequest variants, the coordinator definition's `workKind` and
 * `files`, and the agent pipeline's `kind` and `writes` are built from or typed against it.
 * How a job is requested, priced, checked and stored stays the coordinator's; how it is run, the agent's.
 */
export interface JobContract<T extends JobType = JobType> {
  type: T;
  /** The JetStream work kind whose consumers serve it: the agent pulls it, the coordinator queues on it. */
  workKind: WorkKindName;
  /** The assignment's `params`: what the agent receives besides the source and the output targets. */
  params: z.ZodObject;
  /** The fields the complete request carries besides the fence, `job_type`, `stats` and `outputs` (a zod shape, in wire order). */
  completion: Readonly<Record<string, z.ZodType>>;
  /** Every file an attempt can write, by output name. */
  outputs: Readonly<Record<string, OutputSpec>>;
}

/** Keeps a contract's literal types (its type, kind, output names), checked against JobContract. */
export const defineContract = <const C extends JobContract>(contract: C): C => contract;
