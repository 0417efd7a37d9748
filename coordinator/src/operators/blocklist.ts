import { and, eq, gt, inArray, isNull, notInArray, or, sql } from 'drizzle-orm';
import { FAILURES, FailureCode } from '@cutroom/shared/failures';
import type { Ctx } from '../context.ts';
import { agentBlockClears, jobAttempts, jobs } from '../db/schema.ts';
import { recordAction } from './audit.ts';
import type { Operator } from './operator-auth.ts';

/**
 * Failures that say nothing about the agent: the caller's media (user-blamed) and an operator's
 * cancel. Everything else an attempt ended with (the agent's failure, our fault, a lost lease) counts.
 */
export const NOT_THE_AGENTS_FAULT: readonly FailureCode[] = FailureCode.options.filter((c) => FAILURES[c].blame === 'user' || c === 'operator_cancelled');

export interface BlockedType {
  agent_id: string;
  job_type: string;
  failures: number;
}

/**
 * Flamenco's blocklist, per agent and job type: failed attempts since an operator last cleared
 * the pair, counted from job_attempts (no counter to drift); at BLOCKLIST_FAILURES or more the
 * agent is refused that job type. One grouped query over the agent's attempts (indexed by agent).
 */
export async function blockedTypes(ctx: Ctx, agentId?: string, jobType?: string): Promise<BlockedType[]> {
  const threshold = ctx.config.BLOCKLIST_FAILURES;
  if (threshold === 0) return [];
  const rows = await ctx.db
    .select({ agentId: jobAttempts.agentId, jobType: jobs.jobType, failures: sql<number>`count(*)::int` })
    .from(jobAttempts)
    .innerJoin(jobs, eq(jobs.id, jobAttempts.jobId))
    .leftJoin(agentBlockClears, and(eq(agentBlockClears.agentId, jobAttempts.agentId), eq(agentBlockClears.jobType, sql`${jobs.jobType}::text`)))
    .where(
      and(
        inArray(jobAttempts.outcome, ['failed', 'lease_expired']),
        or(isNull(jobAttempts.errorCode), notInArray(jobAttempts.errorCode, [...NOT_THE_AGENTS_FAULT])),
        or(isNull(agentBlockClears.clearedAt), gt(jobAttempts.endedAt, agentBlockClears.clearedAt)),
        agentId === undefined ? undefined : eq(jobAttempts.agentId, agentId),
        jobType === undefined ? undefined : sql`${jobs.jobType}::text = ${jobType}`,
      ),
    )
    .groupBy(jobAttempts.agentId, jobs.jobType)
    .having(sql`count(*) >= ${threshold}`)
    .orderBy(jobAttempts.agentId, jobs.jobType);
  return rows.map((r) => ({ agent_id: r.agentId, job_type: r.jobType, failures: Number(r.failures) }));
}

/** An operator lets the agent take the job type again; its earlier failures stop counting. */
export async function clearBlock(ctx: Ctx, by: Operator, agentId: string, jobType: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(agentBlockClears)
      .values({ agentId, jobType, clearedAt: now, clearedBy: by.name })
      .onConflictDoUpdate({ target: [agentBlockClears.agentId, agentBlockClears.jobType], set: { clearedAt: now, clearedBy: by.name } });
    await recordAction(tx, { operator: by.name, action: 'agent.unblock', targetKind: 'agent', targetId: agentId, detail: { job_type: jobType }, now });
  });
  ctx.logger.info({ agent_id: agentId, job_type: jobType, operator: by.name }, 'agent blocklist cleared');
}
