import type { BundleChildSummary } from '@cutroom/shared/bundles';
import type { JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import type { JobPatch, JobRow } from '../db/schema.ts';
import type { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';

/**
 * Who runs a job type's work (ARCHITECTURE.md, "Job types"):
 * - `agent`: a render-agent claims it and runs its pipeline (job-types/<type>.ts);
 * - `coordinator`: the coordinator's own durable workflow runs it (publish_video, ADR 0006);
 * - `composite`: it runs no work of its own; its children do (clip bundles and agent products,
 *   composites/), and it settles when they end.
 */
export type Runner = 'agent' | 'coordinator' | 'composite';

/**
 * A job type the coordinator runs itself instead of a render-agent (ADR 0006: publish_video, a
 * durable workflow holding the caller's host account). It is created and paid like any derivative
 * (the same request checks, the same /process gate) but never queues for an agent: paying it
 * starts its workflow.
 */
export interface CoordinatorRunDefinition extends Pick<JobTypeDefinition, 'type' | 'facts' | 'request' | 'prepare' | 'fieldHints'> {
  /** The one status it moves through while its workflow runs. */
  stage: 'publishing';
  /** Whether this server can run the type at all (publish_video: a video host configured); throws the 400 first, before any parent check. */
  requireConfigured(ctx: Ctx): void;
  /** Async checks before anything is created and again before payment (e.g. a connected account); throws AppError. */
  precheck(ctx: Ctx, sessionId: string): Promise<void>;
  /** Paid: move pending → its stage and record the workflow, in the transaction that booked the payment. */
  start(tx: Tx, jobId: string, now: Date, reason: string, patch: JobPatch): Promise<JobRow | null>;
}

/** What a composite's due step did: `cut` (children created, or none to create), `settled`, `cleared` (nothing was due), `raced` (another runner did it). */
export type CompositeStep = 'cut' | 'settled' | 'cleared' | 'raced';

/**
 * A job made of child jobs (composites/): a clip bundle (its clips, started when it is paid) or an
 * agent product (an upload, its find_clips child, then its clips). Children name it in
 * `parent_job_id`; every hook runs in the transaction that made it happen unless it takes a Ctx.
 */
export interface CompositeDefinition {
  type: JobType;
  /** `bundle`: created from a parent job, paid by checkout, its children start when paid. `product`: upload-based, paid by a card hold. */
  kind: 'bundle' | 'product';
  /** Why it cannot be created with POST /jobs (which call creates it instead). */
  createRefusal(): AppError;
  /** The REST call that creates it (`POST /api/v1/jobs/{parent_job_id}/derivatives`), or null: offered over MCP only. */
  restRoute: string | null;
  /** Paid, in the transaction that booked the payment: null when it was no longer pending (the caller refunds). */
  paid(tx: Tx, jobId: string, now: Date, reason: string, patch: JobPatch): Promise<JobRow | null>;
  /** Its upload was committed (products), in one transaction: starts its first child. Null when it moved first. */
  uploadCommitted?(tx: Tx, job: JobRow, upload: { size: number }, now: Date): Promise<JobRow | null>;
  /** Where its upload is committed (products: the find_clips child's own source key). */
  uploadKey?(job: Pick<JobRow, 'params'>): string;
  /** An open paid one expired (pending/uploading), in that transaction: what gives the money back instead of a refund of its charge. */
  expired?(tx: Tx, job: JobRow, now: Date): Promise<void>;
  /** One of its children ended (the job-ended hook, jobs/job-ended.ts), with this row locked. */
  childEnded(tx: Tx, parent: JobRow, child: JobRow, now: Date): Promise<void>;
  /**
   * After commit: its step that needs I/O, when one is due (jobs.step_due_at); null when none is.
   * Run under a lease held by `owner` (composites/steps.ts): each write checks it still holds it
   * (a runner whose lease was taken over writes nothing and answers `raced`).
   */
  runDueStep?(ctx: Ctx, job: JobRow, owner: string): Promise<CompositeStep | null>;
  /** The children a caller sees, in order (index 0: a product's find_clips step). */
  childList(job: JobRow): BundleChildSummary[];
}

/** One entry of the job-type registry (registry.ts): every JobType has exactly one. */
export type JobTypeEntry =
  | { runner: 'agent'; type: JobType; definition: JobTypeDefinition }
  | { runner: 'coordinator'; type: JobType; definition: CoordinatorRunDefinition }
  | { runner: 'composite'; type: JobType; definition: CompositeDefinition };
