import { workSubject, type WorkWakeup } from '@cutroom/proto';
import type { Tx } from '../db/database.ts';
import { outbox } from '../db/schema.ts';
import { workKindOf } from '../job-types/agent-types.ts';

/**
 * Writes a wake-up to the outbox inside the caller's transaction: it is published if and only
 * if the status change that queued the job commits. The job type's definition names the work kind.
 */
export async function enqueueWakeup(tx: Tx, jobId: string, jobType: string, now: Date): Promise<void> {
  const kind = workKindOf(jobType);
  const payload: WorkWakeup = { v: 1, job_id: jobId, kind, enqueued_at: now.toISOString() };
  await tx.insert(outbox).values({ subject: workSubject(kind), payload, createdAt: now });
}
