import { and, eq, gt, ne, notInArray, sql } from 'drizzle-orm';
import type { WorkKind } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agents } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { AGENT_LIVE_MS } from './agent-state.ts';
import { blockedTypes } from './blocklist.ts';
import { requiredTags } from './routing-tags.ts';

/**
 * Whether an agent other than `agentId` could take a job of this kind and type now: live (seen
 * within AGENT_LIVE_MS), active (not draining, not retired), announcing the kind, carrying the tags
 * ROUTING_TAGS asks, not blocked for the type, and not among `excluding` (those that already failed
 * the job). Both "leave it to another agent" rules ask this; answering
 * yes while the only others are blocked would leave a job waiting on agents that refuse it.
 */
export async function anotherAgentCouldTake(
  ctx: Ctx,
  q: { agentId: string; kind: WorkKind; jobType: string; excluding?: readonly string[] },
): Promise<boolean> {
  const blocked = (await blockedTypes(ctx, undefined, q.jobType)).map((b) => b.agent_id);
  const skip = [...new Set([...blocked, ...(q.excluding ?? [])])];
  const others = await ctx.db
    .select({ id: agents.id })
    .from(agents)
    .where(
      and(
        ne(agents.id, q.agentId),
        gt(agents.lastSeenAt, addMs(ctx.clock.now(), -AGENT_LIVE_MS)),
        eq(agents.state, 'active'),
        sql`${agents.tags} @> ${`{${requiredTags(ctx.config.ROUTING_TAGS, q.kind, q.jobType).join(',')}}`}::text[]`,
        sql`${agents.capabilities} -> 'work_kinds' @> ${JSON.stringify([q.kind])}::jsonb`,
        skip.length ? notInArray(agents.id, skip) : undefined,
      ),
    )
    .limit(1);
  return others.length > 0;
}
