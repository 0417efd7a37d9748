import { and, eq } from 'drizzle-orm';
import { isBundleJobType } from '@cutroom/shared/bundles';
import { JOB_TYPES, type JobType } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { jobs, type JobPatch } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { coordinatorRunOf } from '../job-types/coordinator-run.ts';
import { definitionOf } from '../job-types/registry.ts';
import { settlementCents } from '../payments/ledger.ts';
import type { Settlement } from '../payments/types.ts';
import { transitionJob } from './transition-job.ts';

/**
 * Records a payment inside the transaction that books the charge (payments call back into jobs
 * only through the `onSettled` they are handed, never directly): an upload job moves pending →
 * uploading; a no-upload derivative starts at once (pending → its first stage + a wake-up), since
 * paying is what /process is for; a clip bundle starts its children (startBundle). An agent product
 * is an upload job (paid by a hold: pending → uploading). Returns false when the job was no longer
 * pending (the caller must then refund).
 */
export async function markJobPaid(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<boolean> {
  const patch: JobPatch = { paymentStatus: 'paid', paymentRail: s.rail, paymentReference: s.reference, payer: s.payer, amountPaidCents: settlementCents(s) };
  const [job] = await tx.select({ jobType: jobs.jobType }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return false;
  if (isBundleJobType(job.jobType)) return (await startBundle(tx, jobId, now, `paid (${s.method})`, patch)) !== null;
  // From the type's facts, not its definition: an agent product has none (its children run).
  if (JOB_TYPES[job.jobType as JobType].input.kind === 'parent')
    return (await startDerivative(tx, jobId, job.jobType, now, `paid (${s.method}) and started`, patch)) !== null;
  const row = await transitionJob(tx, { jobId, from: 'pending', to: 'uploading', reason: `paid (${s.method})`, now, patch });
  return row !== null;
}

/**
 * Queues a derivative: pending → its type's first stage and an outbox wake-up, in the caller's
 * transaction. Its retention starts when it ends, so nothing expires it while queued or running.
 */
export async function startDerivative(tx: Tx, jobId: string, jobType: string, now: Date, reason: string, patch: JobPatch = {}) {
  // A coordinator-run type starts its own workflow instead of queueing for an agent (ADR 0006).
  const run = coordinatorRunOf(jobType);
  if (run) return run.start(tx, jobId, now, reason, patch);
  const row = await transitionJob(tx, { jobId, from: 'pending', to: definitionOf(jobType).stages[0], reason, now, patch: { ...patch, expiresAt: null } });
  if (row) await enqueueWakeup(tx, jobId, jobType, now);
  return row;
}

/**
 * A paid clip bundle: the bundle moves pending → `analyzing` (it has no agent work of its own and
 * stays there until its last child ends: bundle-status.ts) and each of its pending children
 * starts as a derivative (its own wake-up). Children keep payment_status `paid_by_parent`.
 */
export async function startBundle(tx: Tx, bundleId: string, now: Date, reason: string, patch: JobPatch = {}) {
  const [bundle] = await tx.select({ params: jobs.params }).from(jobs).where(eq(jobs.id, bundleId)).limit(1);
  const children = await tx
    .select({ id: jobs.id, jobType: jobs.jobType })
    .from(jobs)
    .where(and(eq(jobs.bundleJobId, bundleId), eq(jobs.status, 'pending')))
    .orderBy(jobs.createdAt, jobs.id);
  // A child that expired unpaid cannot run: a payment arriving after that is paid back whole (the caller refunds on null).
  if (!bundle || children.length !== bundle.params['quantity']) return null;
  const row = await transitionJob(tx, { jobId: bundleId, from: 'pending', to: 'analyzing', reason, now, patch: { ...patch, expiresAt: null } });
  if (!row) return null;
  for (const c of children) await startDerivative(tx, c.id, c.jobType, now, `started: bundle ${bundleId} paid`);
  return row;
}
