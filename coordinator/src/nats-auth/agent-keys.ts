import { and, eq, isNotNull, isNull, ne } from 'drizzle-orm';
import type { WorkKind } from '@cutroom/proto';
import type { Db, Tx } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { agentNatsKeys } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { agentPermissions } from './agent-permissions.ts';
import { userJwt } from './claims.ts';
import type { NatsAuthKeys } from './keys.ts';

/** A user public key: `U` and 55 more base32 characters. */
export const USER_PUBLIC_KEY = /^U[A-Z2-7]{55}$/;

/**
 * Signs a user JWT for the agent's own key (it holds the seed; we never see it), scoped to the work
 * kinds it registered. A key the agent did not hold before replaces its old one, which is revoked:
 * one live key per agent, so a leaked agent credential shows up as the real host's disconnect.
 * A revoked key stays revoked (the server would honour a JWT issued after its revocation time).
 * Returns whether a key was revoked, so the caller pushes the account after its commit.
 */
export async function issueAgentJwt(
  ctx: { db: Db; clock: Clock },
  keys: NatsAuthKeys,
  agentId: string,
  publicKey: string,
  kinds: readonly WorkKind[],
): Promise<{ jwt: string; revokedOthers: boolean }> {
  if (!USER_PUBLIC_KEY.test(publicKey)) throw new AppError('invalid_request', 'nats_public_key must be a NATS user public key (U…, 56 characters)');
  const now = ctx.clock.now();
  const revokedOthers = await ctx.db.transaction(async (tx) => {
    const [known] = await tx.select().from(agentNatsKeys).where(eq(agentNatsKeys.publicKey, publicKey)).for('update').limit(1);
    if (known && (known.agentId !== agentId || known.revokedAt))
      throw new AppError(
        'forbidden',
        'this NATS key was revoked or belongs to another agent: start the agent with a new key (remove nats_seed from its credential file)',
      );
    if (known)
      await tx
        .update(agentNatsKeys)
        .set({ kinds: [...kinds], issuedAt: now })
        .where(eq(agentNatsKeys.publicKey, publicKey));
    else await tx.insert(agentNatsKeys).values({ publicKey, agentId, kinds: [...kinds], issuedAt: now });
    const others = await tx
      .update(agentNatsKeys)
      .set({ revokedAt: now })
      .where(and(eq(agentNatsKeys.agentId, agentId), ne(agentNatsKeys.publicKey, publicKey), isNull(agentNatsKeys.revokedAt)))
      .returning({ publicKey: agentNatsKeys.publicKey });
    return others.length > 0;
  });
  return { jwt: await userJwt(keys, `agent ${agentId}`, publicKey, agentPermissions(agentId, kinds)), revokedOthers };
}

/** Inside the caller's transaction: every live key of the agent is revoked (retire, credential revoke, re-enrollment). */
export async function revokeAgentNatsKeys(tx: Tx, agentId: string, now: Date): Promise<number> {
  const rows = await tx
    .update(agentNatsKeys)
    .set({ revokedAt: now })
    .where(and(eq(agentNatsKeys.agentId, agentId), isNull(agentNatsKeys.revokedAt)))
    .returning({ publicKey: agentNatsKeys.publicKey });
  return rows.length;
}

/**
 * The account's revocation list: every revoked key with its time in whole seconds, rounded up so a
 * JWT issued in the same second as the revocation is refused too. Entries are kept for good (JWTs
 * do not expire); an agent has one key, so the list grows by one per revoked host.
 */
export async function revocationList(ctx: { db: Db }): Promise<Record<string, number>> {
  const rows = await ctx.db
    .select({ publicKey: agentNatsKeys.publicKey, revokedAt: agentNatsKeys.revokedAt })
    .from(agentNatsKeys)
    .where(isNotNull(agentNatsKeys.revokedAt));
  return Object.fromEntries(rows.map((r) => [r.publicKey, Math.ceil(r.revokedAt!.getTime() / 1000)]));
}
