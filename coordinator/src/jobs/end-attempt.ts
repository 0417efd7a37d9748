import { eq } from 'drizzle-orm';
import type { FailureCode } from '@cutroom/shared/failures';
import type { Tx } from '../db/database.ts';
import { jobAttempts, jobs, type AttemptOutcome } from '../db/schema.ts';
import { settleBundle } from './bundle-status.ts';

/**
 * Closes an attempt row with how it ended. Called in the transaction whose fenced job update
 * decided the outcome, so an attempt is ended only by whoever actually took the job from it.
 * A completed child of a clip bundle may end its bundle (bundle-status.ts) in that transaction;
 * failures reach the bundle through fail-job.ts.
 */
export async function endAttempt(
  tx: Tx,
  attemptId: string,
  now: Date,
  outcome: AttemptOutcome,
  failure?: { code: FailureCode; message: string },
): Promise<void> {
  await tx
    .update(jobAttempts)
    .set({ endedAt: now, outcome, errorCode: failure?.code ?? null, errorMessage: failure?.message ?? null })
    .where(eq(jobAttempts.id, attemptId));
  if (outcome !== 'completed') return;
  const [job] = await tx
    .select({ bundleJobId: jobs.bundleJobId })
    .from(jobAttempts)
    .innerJoin(jobs, eq(jobs.id, jobAttempts.jobId))
    .where(eq(jobAttempts.id, attemptId))
    .limit(1);
  if (job?.bundleJobId) await settleBundle(tx, job.bundleJobId, now);
}
