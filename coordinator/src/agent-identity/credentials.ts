import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { EnrollRequest, EnrollResponse, RotateResponse } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { agentCredentials, agents, enrollmentTokens } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken } from '../lib/tokens.ts';
import { revokeAgentNatsKeys } from '../nats-auth/agent-keys.ts';
import { recordAction } from '../operators/audit.ts';
import { refuseRetiredName } from '../operators/enrollment.ts';

/**
 * An agent's identity (ADR 0007, ADR 0009): the enrollment exchange, its own credentials, their
 * rotation and revocation. What operators do with agents (mint tokens, drain, retire, tag) lives in
 * operators/ and calls in here; the agent routes authenticate with agent-auth.ts.
 */

export const newAgentCredential = (): string => `cra_${randomBytes(32).toString('base64url')}`;

async function refuseTakenName(tx: Tx, agentId: string): Promise<void> {
  const [row] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId)).limit(1);
  if (row)
    throw new AppError(
      'conflict',
      `agent ${agentId} is already enrolled: enroll this host under another AGENT_ID, or have an operator mint a token for ${agentId} (which replaces its credential)`,
    );
}

/**
 * A host trades an enrollment token for its own credential (`cra_…`, shown once). The token is
 * spent in the same transaction (one use). A token minted for a name that exists (a host that lost
 * its credential) revokes that agent's old credentials: the operator chose to replace it. A token
 * minted for no name enrolls a new name only: used with the name of an enrolled agent it is refused
 * (409), unspent, so it cannot take a live agent's identity and lock the real host out. A retired
 * name is refused either way.
 */
export async function enrollAgent(ctx: Ctx, enrollmentToken: string, req: EnrollRequest): Promise<EnrollResponse> {
  const now = ctx.clock.now();
  const credential = newAgentCredential();
  const enrolled = await ctx.db.transaction(async (tx) => {
    const [tokenRow] = await tx
      .select()
      .from(enrollmentTokens)
      .where(
        and(
          eq(enrollmentTokens.tokenHash, hashToken(enrollmentToken)),
          isNull(enrollmentTokens.usedAt),
          isNull(enrollmentTokens.revokedAt),
          gt(enrollmentTokens.expiresAt, now),
        ),
      )
      .for('update')
      .limit(1);
    if (!tokenRow) throw new AppError('unauthenticated', 'unknown, used, revoked or expired enrollment token');
    const agentId = tokenRow.agentId ?? req.agent_id;
    await refuseRetiredName(tx, agentId);
    if (tokenRow.agentId === null) await refuseTakenName(tx, agentId);
    await tx.update(enrollmentTokens).set({ usedAt: now, usedBy: agentId }).where(eq(enrollmentTokens.id, tokenRow.id));
    // The row exists from enrollment on (capabilities arrive with the first announcement): the
    // console shows the host, offline (never seen), until it registers.
    await tx
      .insert(agents)
      .values({ id: agentId, capabilities: {}, registeredAt: now, lastSeenAt: new Date(0), tags: tokenRow.tags, state: 'active', stateChangedAt: now })
      .onConflictDoUpdate({ target: agents.id, set: { tags: tokenRow.tags } });
    await tx
      .update(agentCredentials)
      .set({ revokedAt: now })
      .where(and(eq(agentCredentials.agentId, agentId), isNull(agentCredentials.revokedAt)));
    await tx.insert(agentCredentials).values({ id: randomUUID(), agentId, tokenHash: hashToken(credential), createdAt: now });
    await recordAction(tx, {
      operator: tokenRow.createdBy,
      action: 'agent.enroll',
      targetKind: 'agent',
      targetId: agentId,
      detail: { enrollment: tokenRow.id, hostname: req.hostname, tags: tokenRow.tags },
      now,
    });
    ctx.logger.info({ agent_id: agentId, hostname: req.hostname, tags: tokenRow.tags }, 'agent enrolled');
    return { v: 1 as const, agent_id: agentId, token: credential, tags: tokenRow.tags };
  });
  // A host enrolled under a name that had one (a replacement): the old host's NATS key is refused from now on.
  await pushRevocations(ctx);
  return enrolled;
}

/**
 * After a commit that revoked NATS keys: the servers are told now. A failure is logged, not
 * thrown (the revocation is recorded; every coordinator start and NATS reconnection pushes again).
 */
export async function pushRevocations(ctx: Ctx): Promise<void> {
  await ctx.natsAuth
    ?.pushAccount()
    .catch((err: unknown) => ctx.logger.error({ err }, 'pushing NATS revocations failed: retried at the next start or reconnection'));
}

/**
 * An agent trades its credential for a new one; the one it used keeps working for
 * AGENT_CREDENTIAL_GRACE_SECONDS (a reply lost on the way must not lock the host out).
 */
export async function rotateCredential(ctx: Ctx, agentId: string, credentialId: string): Promise<RotateResponse> {
  const now = ctx.clock.now();
  const credential = newAgentCredential();
  const graceUntil = addMs(now, ctx.config.AGENT_CREDENTIAL_GRACE_SECONDS * 1000);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(agentCredentials)
      .set({ expiresAt: graceUntil })
      .where(
        and(
          eq(agentCredentials.id, credentialId),
          isNull(agentCredentials.revokedAt),
          or(isNull(agentCredentials.expiresAt), gt(agentCredentials.expiresAt, graceUntil)),
        ),
      );
    await tx.insert(agentCredentials).values({ id: randomUUID(), agentId, tokenHash: hashToken(credential), createdAt: now });
    await tx.update(agents).set({ rotateRequestedAt: null }).where(eq(agents.id, agentId));
  });
  ctx.logger.info({ agent_id: agentId }, 'agent credential rotated');
  return { v: 1, agent_id: agentId, token: credential, previous_expires_at: graceUntil.toISOString() };
}

/**
 * Every credential of an agent stops working now (retire, an operator's revoke, a replacing
 * enrollment): its bearer credentials and its NATS keys (the caller pushes the revocations to the
 * servers after its commit: pushRevocations).
 */
export async function revokeAgentCredentials(tx: Tx, agentId: string, now: Date): Promise<number> {
  await revokeAgentNatsKeys(tx, agentId, now);
  const rows = await tx
    .update(agentCredentials)
    .set({ revokedAt: now })
    .where(and(eq(agentCredentials.agentId, agentId), isNull(agentCredentials.revokedAt)))
    .returning({ id: agentCredentials.id });
  return rows.length;
}
