import { and, eq, gt, isNull, notInArray, or, sql } from 'drizzle-orm';
import type { WorkKind } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agentBlockClears, agents, jobAttempts, jobs } from '../db/schema.ts';
import { agentDefinitionOf } from '../job-types/agent-types.ts';
import { addMs } from '../lib/clock.ts';
import { AGENT_LIVE_MS } from '../operators/agent-state.ts';
import { NOT_THE_AGENTS_FAULT } from '../operators/blocklist.ts';
import type { AgentFacts, EligibilitySnapshot } from './claim-rules.ts';

/** Attempts that count against an agent: failed or lost their lease, not for the caller's media or an operator's cancel. */
const agentsFault = or(isNull(jobAttempts.errorCode), notInArray(jobAttempts.errorCode, [...NOT_THE_AGENTS_FAULT]));

/**
 * What the claim decision reads (claim-rules.ts), in two queries: the job with its attempts, and
 * the claiming agent with every live active peer, each with its blocklist count for the job's type
 * (failures since an operator last cleared the pair). It replaces eight round trips spread over
 * the claim and five operator modules.
 */
export async function loadEligibility(ctx: Ctx, agentId: string, jobId: string): Promise<EligibilitySnapshot> {
  const now = ctx.clock.now();
  const attempts = await ctx.db
    .select({
      jobType: jobs.jobType,
      attemptCount: jobs.attemptCount,
      agentId: jobAttempts.agentId,
      failed: sql<boolean>`${jobAttempts.outcome} in ('failed', 'lease_expired')`,
      agentsFault: sql<boolean>`coalesce(${agentsFault}, false)`,
      endedAt: jobAttempts.endedAt,
    })
    .from(jobs)
    .leftJoin(jobAttempts, eq(jobAttempts.jobId, jobs.id))
    .where(eq(jobs.id, jobId));
  const first = attempts[0];
  const definition = first ? agentDefinitionOf(first.jobType) : null;
  if (!first || !definition) return { job: null, agent: null, failedBy: [], peers: [] };
  const failures = attempts.filter((a) => a.agentId !== null && a.failed);
  const lastFailureEndedAt = failures.reduce<Date | null>((last, a) => (a.endedAt && (!last || a.endedAt > last) ? a.endedAt : last), null);
  const kind: WorkKind = definition.workKind;

  const typeFailures = sql<number>`(
    select count(*)::int from ${jobAttempts} fa
      join ${jobs} fj on fj.id = fa.job_id
      left join ${agentBlockClears} fc on fc.agent_id = fa.agent_id and fc.job_type = fj.job_type::text
    where fa.agent_id = "agents"."id" and fj.job_type::text = ${first.jobType}
      and fa.outcome in ('failed', 'lease_expired')
      and (fa.error_code is null or fa.error_code not in (${sql.join(
        NOT_THE_AGENTS_FAULT.map((c) => sql`${c}`),
        sql`, `,
      )}))
      and (fc.cleared_at is null or fa.ended_at > fc.cleared_at))`;
  const liveSince = addMs(now, -AGENT_LIVE_MS);
  const rows = await ctx.db
    .select({
      id: agents.id,
      state: agents.state,
      tags: agents.tags,
      kinds: sql<string[] | null>`${agents.capabilities} -> 'work_kinds'`,
      lastSeenAt: agents.lastSeenAt,
      rotateRequestedAt: agents.rotateRequestedAt,
      typeFailures: ctx.config.BLOCKLIST_FAILURES > 0 ? typeFailures : sql<number>`0`,
    })
    .from(agents)
    .where(or(eq(agents.id, agentId), and(gt(agents.lastSeenAt, liveSince), eq(agents.state, 'active'))));
  const facts = (r: (typeof rows)[number]): AgentFacts => ({
    id: r.id,
    state: r.state,
    kinds: Array.isArray(r.kinds) ? r.kinds : [],
    tags: r.tags,
    live: r.lastSeenAt > liveSince,
    typeFailures: Number(r.typeFailures),
    rotateRequested: r.rotateRequestedAt !== null,
  });
  const me = rows.find((r) => r.id === agentId);
  return {
    job: { type: first.jobType, kind, attemptCount: first.attemptCount, lastFailureEndedAt },
    agent: me ? facts(me) : null,
    failedBy: [...new Set(failures.filter((a) => a.agentsFault).map((a) => a.agentId!))],
    peers: rows.filter((r) => r.id !== agentId).map(facts),
  };
}
