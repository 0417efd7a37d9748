import { eq } from 'drizzle-orm';
import type { FailureCode } from '@cutroom/shared/failures';
import type { Tx } from '../db/database.ts';
import { jobAttempts, type AttemptOutcome } from '../db/schema.ts';

/**
 * Closes an attempt row with how it ended. Called in the transaction whose fenced job update
 * decided the outcome, so an attempt is ended only by whoever actually took the job from it.
 * A composite's child reaches its parent through the job-ended hook of the transition itself.
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
}
