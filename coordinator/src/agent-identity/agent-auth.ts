import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { agentCredentials, agents } from '../db/schema.ts';
import { hashToken } from '../lib/tokens.ts';

/** Who an internal call comes from: one enrolled agent, by its own credential. */
export interface AgentIdentity {
  agentId: string;
  credentialId: string;
}

/** Credential uses are written at most this often per credential (every claim and heartbeat authenticates). */
const LAST_USED_EVERY_MS = 60_000;

/**
 * The agent holding this bearer credential, or null: unknown, revoked, past its rotation grace,
 * or its agent retired. One indexed lookup per call.
 */
export async function authenticateAgent(ctx: Ctx, token: string): Promise<AgentIdentity | null> {
  if (!token.startsWith('cra_')) return null;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .select({ id: agentCredentials.id, agentId: agentCredentials.agentId, lastUsedAt: agentCredentials.lastUsedAt, state: agents.state })
    .from(agentCredentials)
    .innerJoin(agents, eq(agents.id, agentCredentials.agentId))
    .where(
      and(
        eq(agentCredentials.tokenHash, hashToken(token)),
        isNull(agentCredentials.revokedAt),
        or(isNull(agentCredentials.expiresAt), gt(agentCredentials.expiresAt, now)),
      ),
    )
    .limit(1);
  if (!row || row.state === 'retired') return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_EVERY_MS)
    await ctx.db.update(agentCredentials).set({ lastUsedAt: now }).where(eq(agentCredentials.id, row.id));
  return { agentId: row.agentId, credentialId: row.id };
}
