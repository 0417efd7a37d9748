import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { CoordinatorConfig } from '../config.ts';
import type { Ctx } from '../context.ts';
import { jobAttempts } from '../db/schema.ts';

/**
 * How long a job waits after its `failures`-th failed attempt before the next one may start:
 * RETRY_BACKOFF_MS, doubled per further failure, at most RETRY_BACKOFF_MAX_MS.
 */
export function retryDelayMs(failures: number, config: Pick<CoordinatorConfig, 'RETRY_BACKOFF_MS' | 'RETRY_BACKOFF_MAX_MS'>): number {
  if (failures <= 0 || config.RETRY_BACKOFF_MS === 0) return 0;
  return Math.min(config.RETRY_BACKOFF_MS * 2 ** Math.min(failures - 1, 20), config.RETRY_BACKOFF_MAX_MS);
}

/**
 * Milliseconds left before a requeued job may be claimed again (0: now). `attemptCount` is the
 * job's attempts in its current run (an operator's retry resets it); the wait counts from the end
 * of its last attempt that failed or lost its lease.
 */
export async function retryWaitMs(ctx: Ctx, jobId: string, attemptCount: number, now: Date): Promise<number> {
  const delay = retryDelayMs(attemptCount, ctx.config);
  if (delay === 0) return 0;
  const [last] = await ctx.db
    .select({ endedAt: jobAttempts.endedAt })
    .from(jobAttempts)
    .where(and(eq(jobAttempts.jobId, jobId), inArray(jobAttempts.outcome, ['failed', 'lease_expired']), isNotNull(jobAttempts.endedAt)))
    .orderBy(desc(jobAttempts.endedAt))
    .limit(1);
  if (!last?.endedAt) return 0;
  return Math.max(0, last.endedAt.getTime() + delay - now.getTime());
}
