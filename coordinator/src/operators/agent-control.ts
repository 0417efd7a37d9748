import { and, eq, ne } from 'drizzle-orm';
import type { AgentControl } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { type AgentControlState, agents } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { recordAction } from './audit.ts';
import { pushRevocations, revokeAgentCredentials } from '../agent-identity/credentials.ts';
import { checkTags } from './enrollment.ts';
import type { Operator } from './operator-auth.ts';

/**
 * Operators' moves on one agent. Drain: finish the current attempt, claim nothing more (claims are
 * refused, and the agent pauses its pulls when told). Resume: take work again. Retire: credentials
 * revoked at once, the name never reused; an attempt it still holds runs to its lease and is
 * requeued by the sweeper like any lost attempt. Each is recorded with who took it.
 */
export async function setAgentState(ctx: Ctx, by: Operator, agentId: string, to: 'active' | 'draining' | 'retired'): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.select({ state: agents.state }).from(agents).where(eq(agents.id, agentId)).for('update').limit(1);
    if (!row) throw new AppError('not_found', `no agent ${agentId}`);
    if (row.state === 'retired') throw new AppError('conflict', `agent ${agentId} is retired`);
    if (row.state === to) return;
    await tx
      .update(agents)
      .set({ state: to, stateChangedAt: now })
      .where(and(eq(agents.id, agentId), ne(agents.state, 'retired')));
    const detail: Record<string, unknown> = { from: row.state };
    if (to === 'retired') detail['credentials_revoked'] = await revokeAgentCredentials(tx, agentId, now);
    await recordAction(tx, { operator: by.name, action: ACTION[to], targetKind: 'agent', targetId: agentId, detail, now });
  });
  ctx.logger.info({ agent_id: agentId, operator: by.name, state: to }, `agent ${ACTION[to]}`);
  if (to === 'retired') await pushRevocations(ctx);
}

const ACTION: Record<AgentControlState, string> = { active: 'agent.resume', draining: 'agent.drain', retired: 'agent.retire' };

/** Replaces an agent's tags (routing, docs/operators.md). */
export async function setAgentTags(ctx: Ctx, by: Operator, agentId: string, tags: readonly string[]): Promise<string[]> {
  const clean = checkTags(tags);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.update(agents).set({ tags: clean }).where(eq(agents.id, agentId)).returning({ id: agents.id });
    if (!row) throw new AppError('not_found', `no agent ${agentId}`);
    await recordAction(tx, { operator: by.name, action: 'agent.tags', targetKind: 'agent', targetId: agentId, detail: { tags: clean }, now });
  });
  return clean;
}

/** Asks the agent to trade its credential for a new one at its next announcement (within 30 s while it runs). */
export async function requestRotation(ctx: Ctx, by: Operator, agentId: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({ rotateRequestedAt: now })
      .where(and(eq(agents.id, agentId), ne(agents.state, 'retired')))
      .returning({ id: agents.id });
    if (!row) throw new AppError('not_found', `no agent ${agentId} that is not retired`);
    await recordAction(tx, { operator: by.name, action: 'agent.rotate', targetKind: 'agent', targetId: agentId, now });
  });
}

/** Revokes every credential of an agent now (a stolen host): it must be enrolled again. */
export async function revokeCredentials(ctx: Ctx, by: Operator, agentId: string): Promise<number> {
  const now = ctx.clock.now();
  const n = await ctx.db.transaction(async (tx) => {
    const revoked = await revokeAgentCredentials(tx, agentId, now);
    await recordAction(tx, { operator: by.name, action: 'agent.revoke_credentials', targetKind: 'agent', targetId: agentId, detail: { revoked }, now });
    return revoked;
  });
  await pushRevocations(ctx);
  return n;
}

/** What an agent is told in answer to its announcements and refused claims. */
export function controlOf(row: { state: AgentControlState; rotateRequestedAt: Date | null } | null): AgentControl {
  return { state: row?.state === 'draining' ? 'draining' : 'active', rotate_credential: row?.rotateRequestedAt != null };
}
