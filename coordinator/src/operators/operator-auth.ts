import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { adminSessions, operators } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken } from '../lib/tokens.ts';
import { recordAction } from './audit.ts';

/** The operator a request acts as: every action is recorded under `name`. */
export interface Operator {
  id: string;
  name: string;
}

export const newOperatorToken = (): string => `cro_${randomBytes(32).toString('base64url')}`;

/**
 * Makes ADMIN_TOKEN (or the embedded default's generated one) the token of the operator named
 * ADMIN_NAME, creating it on first start; a changed token replaces the stored hash (and so the
 * old token stops working). Idempotent; safe for several replicas starting together.
 */
export async function ensureBootstrapOperator(ctx: Ctx, token: string | undefined): Promise<void> {
  if (!token) return;
  const now = ctx.clock.now();
  const name = ctx.config.ADMIN_NAME;
  await ctx.db
    .insert(operators)
    .values({ id: randomUUID(), name, tokenHash: hashToken(token), createdBy: 'ADMIN_TOKEN', createdAt: now })
    .onConflictDoUpdate({ target: operators.name, set: { tokenHash: hashToken(token), revokedAt: null } });
}

/** The operator holding this token (`cro_…`), or null. */
export async function operatorByToken(ctx: Ctx, token: string): Promise<Operator | null> {
  const [row] = await ctx.db
    .select({ id: operators.id, name: operators.name })
    .from(operators)
    .where(and(eq(operators.tokenHash, hashToken(token)), isNull(operators.revokedAt)))
    .limit(1);
  return row ?? null;
}

/** Trades an operator token for a console session id (an httpOnly cookie's value). */
export async function logIn(ctx: Ctx, token: string): Promise<{ sessionId: string; operator: Operator; expiresAt: Date }> {
  const operator = await operatorByToken(ctx, token);
  if (!operator) throw new AppError('unauthenticated', 'unknown or revoked operator token');
  const now = ctx.clock.now();
  const sessionId = randomBytes(32).toString('base64url');
  const expiresAt = addMs(now, ctx.config.ADMIN_SESSION_HOURS * 3600_000);
  await ctx.db.insert(adminSessions).values({ idHash: hashToken(sessionId), operatorId: operator.id, createdAt: now, expiresAt });
  // Old log-ins are cleaned here: they are few, and this is the only place they are made.
  await ctx.db.delete(adminSessions).where(lt(adminSessions.expiresAt, now));
  return { sessionId, operator, expiresAt };
}

export async function logOut(ctx: Ctx, sessionId: string): Promise<void> {
  await ctx.db.delete(adminSessions).where(eq(adminSessions.idHash, hashToken(sessionId)));
}

/** The operator of a live console session, or null (expired, logged out, operator revoked). */
export async function operatorBySession(ctx: Ctx, sessionId: string): Promise<Operator | null> {
  const [row] = await ctx.db
    .select({ id: operators.id, name: operators.name })
    .from(adminSessions)
    .innerJoin(operators, eq(operators.id, adminSessions.operatorId))
    .where(and(eq(adminSessions.idHash, hashToken(sessionId)), gt(adminSessions.expiresAt, ctx.clock.now()), isNull(operators.revokedAt)))
    .limit(1);
  return row ?? null;
}

export interface OperatorView {
  id: string;
  name: string;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
}

export async function listOperators(ctx: Ctx): Promise<OperatorView[]> {
  const rows = await ctx.db.select().from(operators).orderBy(asc(operators.createdAt));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    revoked_at: r.revokedAt?.toISOString() ?? null,
  }));
}

/** A new operator with a token of their own, shown once. */
export async function createOperator(ctx: Ctx, by: Operator, name: string): Promise<{ operator: OperatorView; token: string }> {
  const now = ctx.clock.now();
  const token = newOperatorToken();
  const id = randomUUID();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(operators)
      .values({ id, name, tokenHash: hashToken(token), createdBy: by.name, createdAt: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError('conflict', `an operator named ${name} exists`);
    await recordAction(tx, { operator: by.name, action: 'operator.create', targetKind: 'operator', targetId: name, now });
    return { operator: { id, name, created_by: by.name, created_at: now.toISOString(), revoked_at: null }, token };
  });
}

/** Revokes an operator's token and ends their console sessions. One cannot revoke oneself (someone must be left). */
export async function revokeOperator(ctx: Ctx, by: Operator, name: string): Promise<void> {
  if (name === by.name) throw new AppError('conflict', 'you cannot revoke yourself');
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(operators)
      .set({ revokedAt: now })
      .where(and(eq(operators.name, name), isNull(operators.revokedAt)))
      .returning({ id: operators.id });
    if (!row) throw new AppError('not_found', `no active operator named ${name}`);
    await tx.delete(adminSessions).where(eq(adminSessions.operatorId, row.id));
    await recordAction(tx, { operator: by.name, action: 'operator.revoke', targetKind: 'operator', targetId: name, now });
  });
}
