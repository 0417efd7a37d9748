import type { AgentCapabilities, AgentControl, WorkKind } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { controlOf } from './agent-control.ts';
import { agentControlRow } from './agent-state.ts';
import { isBlocked } from './blocklist.ts';
import { anotherAgentCouldTake } from './eligible-agents.ts';
import { missingTags, requiredTags } from './routing-tags.ts';

/** How long a refused agent leaves a wake-up before it comes back (to it or another agent). */
export const REFUSED_RETRY_MS = 5_000;
/** A draining agent hands its wake-ups back quickly: another agent should take them now. */
export const DRAINING_RETRY_MS = 1_000;

export interface ClaimRefusal {
  reason: string;
  retry_after_ms: number;
  control?: AgentControl;
}

/**
 * Whether this agent may take a job of this kind and type, before any claim is attempted: it must
 * be enrolled and active (not draining), announce the kind, carry the tags ROUTING_TAGS asks of
 * the kind and the type, and not be blocked for the type unless no other agent could take the job.
 * Null: it may.
 */
export async function claimRefusal(ctx: Ctx, agentId: string, kind: WorkKind, jobType: string): Promise<ClaimRefusal | null> {
  const row = await agentControlRow(ctx, agentId);
  const required = requiredTags(ctx.config.ROUTING_TAGS, kind, jobType);
  // The agent routes only let enrolled agents in, and enrollment writes the row: a missing row is an
  // in-process caller (engine tests). It is held to what can be checked without one: tags.
  if (!row) return required.length ? { reason: `${jobType} needs an agent tagged ${required.join(', ')}`, retry_after_ms: REFUSED_RETRY_MS } : null;
  if (row.state === 'draining') return { reason: 'this agent is draining', retry_after_ms: DRAINING_RETRY_MS, control: controlOf(row) };
  if (row.state === 'retired') return { reason: 'this agent is retired', retry_after_ms: DRAINING_RETRY_MS };
  const kinds = (row.capabilities as Partial<AgentCapabilities>).work_kinds ?? [];
  if (!kinds.includes(kind)) return { reason: `this agent did not announce work kind ${kind}`, retry_after_ms: REFUSED_RETRY_MS };
  const missing = missingTags(required, row.tags);
  if (missing.length) return { reason: `${jobType} needs an agent tagged ${missing.join(', ')}`, retry_after_ms: REFUSED_RETRY_MS };
  if (await isBlocked(ctx, agentId, jobType)) {
    // The block routes work away from a bad host while another can take it; when none can (every
    // live agent for the type is blocked, or this is the only one) it yields: a paid job must not
    // wait forever on an operator, and MAX_ATTEMPTS still bounds what a broken farm costs it.
    if (await anotherAgentCouldTake(ctx, { agentId, kind, jobType }))
      return { reason: `this agent is blocked for ${jobType} after repeated failures (an operator can clear it)`, retry_after_ms: REFUSED_RETRY_MS };
    ctx.logger.warn({ agent_id: agentId, job_type: jobType }, 'a blocked agent takes the job: no unblocked agent can');
  }
  return null;
}
