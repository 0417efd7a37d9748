import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { JobStatus } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { jobEvents, jobs, type JobPatch, type JobRow } from '../db/schema.ts';
import { jobEnded } from './job-ended.ts';
import { canTransition, isTerminal } from './transitions.ts';

export interface TransitionInput {
  jobId: string;
  from: JobStatus | readonly JobStatus[];
  to: JobStatus;
  reason: string;
  now: Date;
  attemptId?: string | null;
  /** Extra columns written in the same UPDATE. */
  patch?: JobPatch;
  /** Extra guard, e.g. the attempt fence `current_attempt_id = $attempt`. */
  where?: SQL;
}

/**
 * The only writer of jobs.status. `UPDATE … WHERE id = $1 AND status IN ($from)` plus an
 * append-only job_events row, in the caller's transaction. Returns the updated row, or null when
 * the job was not in a `from` status (someone else moved it first): callers decide what that means.
 * An edge missing from the table is a programming error and throws. A job that ends (completed,
 * failed, deleted) calls the job-ended hook in the same transaction (job-ended.ts): its parent
 * composite, if it has one, decides what that means for it.
 */
export async function transitionJob(tx: Tx, input: TransitionInput): Promise<JobRow | null> {
  const froms: readonly JobStatus[] = typeof input.from === 'string' ? [input.from] : input.from;
  for (const f of froms) {
    if (!canTransition(f, input.to)) throw new Error(`illegal job transition ${f} → ${input.to}`);
  }
  const guard = and(eq(jobs.id, input.jobId), inArray(jobs.status, [...froms]), input.where);
  const [row] = await tx
    .update(jobs)
    .set({ ...input.patch, status: input.to, updatedAt: input.now })
    .where(guard)
    .returning();
  if (!row) return null;
  // The previous status is not returned by UPDATE; with a single `from` it is known exactly.
  const fromStatus = froms.length === 1 ? froms[0]! : null;
  await tx.insert(jobEvents).values({
    jobId: input.jobId,
    fromStatus,
    toStatus: input.to,
    reason: input.reason,
    attemptId: input.attemptId ?? null,
    createdAt: input.now,
  });
  if (isTerminal(input.to)) await jobEnded(tx, row, input.now);
  return row;
}
