import type { Tx } from '../db/database.ts';
import type { JobPatch, JobRow } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { definitionOf } from './agent-types.ts';

/**
 * Queues agent work: `from` → the type's first stage and an outbox wake-up, in the caller's
 * transaction (a paid derivative, a committed upload, a composite's child). Not expiring while
 * queued or running: its retention starts when it ends. Null when the job was not in `from`.
 */
export async function queueAgentJob(
  tx: Tx,
  job: { id: string; jobType: string },
  input: { from: 'pending' | 'uploading'; now: Date; reason: string; patch?: JobPatch },
): Promise<JobRow | null> {
  const row = await transitionJob(tx, {
    jobId: job.id,
    from: input.from,
    to: definitionOf(job.jobType).stages[0],
    reason: input.reason,
    now: input.now,
    patch: { ...input.patch, expiresAt: null },
  });
  if (row) await enqueueWakeup(tx, job.id, job.jobType, input.now);
  return row;
}
