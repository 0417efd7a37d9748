import type { JobPatch } from '../db/schema.ts';
import type { Tx } from '../db/database.ts';
import type { Ctx } from '../context.ts';
import type { JobTypeDefinition } from './definition.ts';
import type { JobType } from '@cutroom/shared/job-types';
import { publishVideoJob } from '../publishing/publish-job.ts';

/**
 * A job type whose work the coordinator runs itself instead of a render-agent (ADR 0006:
 * publish_video, a durable workflow holding the caller's host account). It is created and paid
 * like any derivative (the same request checks, the same /process gate) but never queues for an
 * agent: paying it starts its workflow.
 */
export interface CoordinatorRunDefinition extends Pick<JobTypeDefinition, 'type' | 'facts' | 'request' | 'prepare' | 'fieldHints'> {
  /** The one status it moves through while its workflow runs. */
  stage: 'publishing';
  /** Whether this server can run the type at all (publish_video: a video host configured); throws the 400 first, before any parent check. */
  requireConfigured(ctx: Ctx): void;
  /** Async checks before anything is created and again before payment (e.g. a connected account); throws AppError. */
  precheck(ctx: Ctx, sessionId: string): Promise<void>;
  /** Paid: move pending → its stage and record the workflow, in the transaction that booked the payment. */
  start(tx: Tx, jobId: string, now: Date, reason: string, patch: JobPatch): Promise<unknown>;
}

const registry: Partial<Record<JobType, CoordinatorRunDefinition>> = { publish_video: publishVideoJob };

export const coordinatorRunOf = (type: string): CoordinatorRunDefinition | undefined => registry[type as JobType];

export const isCoordinatorRun = (type: string): boolean => registry[type as JobType] !== undefined;

/** The coordinator-run types, for passes that must leave them to their own worker (wake-ups). */
export const coordinatorRunTypes = (): JobType[] => Object.keys(registry) as JobType[];
