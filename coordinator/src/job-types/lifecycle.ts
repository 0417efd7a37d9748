import { availableJobTypes } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { eq } from 'drizzle-orm';
import { type JobPatch, type JobRow, jobs } from '../db/schema.ts';
import { sourceKeyOf } from '../jobs/job-access.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { AppError } from '../lib/app-error.ts';
import { queueRefund } from '../payments/ledger.ts';
import type { JobTypeDefinition } from './definition.ts';
import type { CoordinatorRunDefinition } from './entry.ts';
import { entryOf, factsOf } from './registry.ts';
import { queueAgentJob } from './start-agent-job.ts';
import { sourceUrlOf } from './upload-common.ts';

/**
 * What happens to a job at each point of its life, by its registry entry (registry.ts): the
 * switches that used to test type names in the core, in one place. Each runs in the caller's
 * transaction.
 */

/** A type a caller may create with POST /jobs: an agent-run or coordinator-run one. Composites say which call creates them (400). */
export function creatableEntry(
  type: string,
): { runner: 'agent'; definition: JobTypeDefinition } | { runner: 'coordinator'; definition: CoordinatorRunDefinition } {
  const entry = entryOf(type);
  if (entry.runner === 'composite') throw entry.definition.createRefusal();
  if (!factsOf(type).available) {
    throw new AppError('not_implemented_job_type', `job_type ${type} is not available yet; this service currently runs: ${availableJobTypes().join(', ')}`);
  }
  return entry;
}

/** Whether the type's input is an upload (upload-url, complete-upload) rather than a parent job (process, or started when paid). */
export const takesUpload = (type: string): boolean => factsOf(type).input.kind === 'upload';

/**
 * A job paid, in the transaction that books the payment: an upload job (agent product included)
 * moves pending → uploading; a job that works from a parent starts at once (paying is what
 * /process is for: agent work queued, or a coordinator workflow started); a clip bundle starts its
 * children. Null when the job was no longer pending (the caller then refunds).
 */
export async function startPaidJob(tx: Tx, job: { id: string; jobType: string }, now: Date, reason: string, patch: JobPatch): Promise<JobRow | null> {
  const entry = entryOf(job.jobType);
  if (entry.runner === 'composite') return entry.definition.paid(tx, job.id, now, reason, patch);
  if (takesUpload(job.jobType)) {
    // Media by URL: nothing to upload, so paying starts it (the agent fetches the source_url).
    if (await fetchesSourceUrl(tx, job.id)) return queueAgentJob(tx, job, { from: 'pending', now, reason: `${reason}; source_url fetch queued`, patch });
    return transitionJob(tx, { jobId: job.id, from: 'pending', to: 'uploading', reason, now, patch });
  }
  return startDerivative(tx, job, now, `${reason} and started`, patch);
}

async function fetchesSourceUrl(tx: Tx, jobId: string): Promise<boolean> {
  const [row] = await tx.select({ params: jobs.params }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  return row !== undefined && sourceUrlOf(row) !== null;
}

/**
 * Starts a paid job that works from a parent: an agent-run one is queued (its first stage and a
 * wake-up), a coordinator-run one starts its own workflow (ADR 0006).
 */
export async function startDerivative(tx: Tx, job: { id: string; jobType: string }, now: Date, reason: string, patch: JobPatch = {}): Promise<JobRow | null> {
  const entry = entryOf(job.jobType);
  if (entry.runner === 'coordinator') return entry.definition.start(tx, job.id, now, reason, patch);
  if (entry.runner === 'composite') throw new Error(`${job.jobType} starts when paid, not as a derivative`);
  return queueAgentJob(tx, job, { from: 'pending', now, reason, patch });
}

/** Where a job's upload is committed: its own source key, or where its composite puts it (a product's find_clips child). */
export function committedSourceKey(job: JobRow): string {
  const entry = entryOf(job.jobType);
  return (entry.runner === 'composite' && entry.definition.uploadKey?.(job)) || sourceKeyOf(job.id);
}

/**
 * A job's upload was committed, in one transaction: agent work is queued (its first stage and a
 * wake-up); an agent product starts its find_clips child. Null when the job moved first.
 */
export async function startUploadedJob(tx: Tx, job: JobRow, upload: { key: string; size: number }, now: Date): Promise<JobRow | null> {
  const entry = entryOf(job.jobType);
  if (entry.runner === 'composite') {
    if (!entry.definition.uploadCommitted) throw new Error(`${job.jobType} takes no upload`);
    return entry.definition.uploadCommitted(tx, job, upload, now);
  }
  return queueAgentJob(tx, job, { from: 'uploading', now, reason: 'upload completed', patch: { sourceKey: upload.key, fileSize: upload.size } });
}

/** A paid open job expired unprocessed, in that transaction: its charge is refunded, or its composite gives the money back its own way (a product releases its hold). */
export async function openJobExpired(tx: Tx, job: JobRow, now: Date): Promise<void> {
  const entry = entryOf(job.jobType);
  if (entry.runner === 'composite' && entry.definition.expired) await entry.definition.expired(tx, job, now);
  else await queueRefund(tx, job.id, now);
}

/** Why an operator may not cancel or retry a job of this type from the console (null: they may). */
export function operatorRefusal(job: Pick<JobRow, 'jobType' | 'parentJobId'>, action: 'cancel' | 'retry'): string | null {
  const { runner } = entryOf(job.jobType);
  if (runner === 'composite' && action === 'cancel') return `${job.jobType} runs as children: cancel its children (each refunds its share)`;
  if (action === 'retry' && runner !== 'agent') return `${job.jobType} jobs cannot be retried from the console; the caller can create it again`;
  if (action === 'retry' && job.parentJobId) return 'this job is part of a bundle or product, which already settled when it failed';
  return null;
}
