import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { jobs, type JobPatch, type JobRow } from '../../db/schema.ts';
import { queueAgentJob } from '../../job-types/start-agent-job.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { bundleParams } from './bundle-params.ts';

/**
 * A paid clip bundle: the bundle moves pending → `analyzing` (it has no agent work of its own and
 * stays there until its last child ends: bundle-status.ts) and each of its pending children is
 * queued for an agent (its own wake-up). Children keep payment_status `paid_by_parent`. Null when
 * a child expired unpaid (it cannot run: the caller pays the whole payment back) or the bundle
 * was no longer pending.
 */
export async function startBundle(tx: Tx, bundleId: string, now: Date, reason: string, patch: JobPatch = {}): Promise<JobRow | null> {
  const [bundle] = await tx.select({ params: jobs.params }).from(jobs).where(eq(jobs.id, bundleId)).limit(1);
  const children = await tx
    .select({ id: jobs.id, jobType: jobs.jobType })
    .from(jobs)
    .where(and(eq(jobs.parentJobId, bundleId), eq(jobs.status, 'pending')))
    .orderBy(jobs.createdAt, jobs.id);
  if (!bundle || children.length !== bundleParams(bundle).quantity) return null;
  const row = await transitionJob(tx, { jobId: bundleId, from: 'pending', to: 'analyzing', reason, now, patch: { ...patch, expiresAt: null } });
  if (!row) return null;
  for (const c of children) await queueAgentJob(tx, c, { from: 'pending', now, reason: `started: bundle ${bundleId} paid` });
  return row;
}
