import type { SQL } from 'drizzle-orm';
import type { Tx } from '../db/database.ts';
import type { JobRow } from '../db/schema.ts';
import { enqueueWakeup } from '../dispatch/enqueue.ts';
import { definitionOf } from '../job-types/agent-types.ts';
import { transitionJob } from './transition-job.ts';

/**
 * Puts a job back in the queue: its type's first stage, no attempt, no lease, no progress, and a
 * fresh wake-up, in the caller's transaction. `where` is the fence the caller read (the attempt
 * it is taking the job from); null when someone else moved the job first.
 */
export async function requeueJob(
  tx: Tx,
  job: Pick<JobRow, 'id' | 'jobType' | 'status'>,
  input: { now: Date; reason: string; attemptId: string | null; where?: SQL },
): Promise<JobRow | null> {
  const row = await transitionJob(tx, {
    jobId: job.id,
    from: job.status,
    to: definitionOf(job.jobType).stages[0],
    reason: input.reason,
    now: input.now,
    attemptId: input.attemptId,
    where: input.where,
    patch: { currentAttemptId: null, leaseExpiresAt: null, progress: null },
  });
  if (row) await enqueueWakeup(tx, job.id, job.jobType, input.now);
  return row;
}
