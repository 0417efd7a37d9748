import { randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { agents, enrollmentTokens } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken } from '../lib/tokens.ts';
import { recordAction } from './audit.ts';
import type { Operator } from './operator-auth.ts';
import { TAG_PATTERN } from './routing-tags.ts';

export const newEnrollmentToken = (): string => `cre_${randomBytes(32).toString('base64url')}`;

export interface MintedEnrollment {
  id: string;
  token: string;
  agent_id: string | null;
  tags: string[];
  expires_at: string;
  /** What to run on the new host (docs/operators.md): the one command that adds it. */
  command: string;
}

export function checkTags(tags: readonly string[]): string[] {
  for (const t of tags) if (!TAG_PATTERN.test(t)) throw new AppError('invalid_request', `tag "${t}" must match ${TAG_PATTERN}`);
  return [...new Set(tags)].sort();
}

/** An operator mints a one-use token for a new host; only its hash is kept. */
export async function mintEnrollmentToken(
  ctx: Ctx,
  by: Operator,
  input: { agentId?: string | null | undefined; tags?: readonly string[] | undefined },
  target: EnrollTarget,
): Promise<MintedEnrollment> {
  const now = ctx.clock.now();
  const token = newEnrollmentToken();
  const id = randomUUID();
  const tags = checkTags(input.tags ?? []);
  const agentId = input.agentId ?? null;
  const expiresAt = addMs(now, ctx.config.ENROLLMENT_TOKEN_TTL_HOURS * 3600_000);
  await ctx.db.transaction(async (tx) => {
    if (agentId) await refuseRetiredName(tx, agentId);
    await tx.insert(enrollmentTokens).values({ id, tokenHash: hashToken(token), agentId, tags, createdBy: by.name, createdAt: now, expiresAt });
    await recordAction(tx, { operator: by.name, action: 'enrollment.mint', targetKind: 'enrollment', targetId: id, detail: { agent_id: agentId, tags }, now });
  });
  return { id, token, agent_id: agentId, tags, expires_at: expiresAt.toISOString(), command: enrollCommand(target, token, agentId) };
}

/** Where a new host reaches the farm: the agent listener's URL and the NATS server, as hosts see them. */
export interface EnrollTarget {
  coordinatorUrl: string;
  natsUrl: string;
}

/** The one command an operator runs on a GPU host, from a checkout of this repository (docs/operators.md). */
export function enrollCommand(target: EnrollTarget, token: string, agentId: string | null): string {
  const id = agentId ? '' : 'AGENT_ID=$(hostname) ';
  return `${id}COORDINATOR_URL=${target.coordinatorUrl} NATS_URL=${target.natsUrl} AGENT_ENROLLMENT_TOKEN=${token} npm run agent`;
}

/** A retired name never comes back (ADR 0007): refused when minted for, and when enrolled under. */
export async function refuseRetiredName(tx: Tx, agentId: string): Promise<void> {
  const [row] = await tx.select({ state: agents.state }).from(agents).where(eq(agents.id, agentId)).limit(1);
  if (row?.state === 'retired') throw new AppError('conflict', `agent ${agentId} was retired; enroll the host under another name`);
}

export interface EnrollmentView {
  id: string;
  agent_id: string | null;
  tags: string[];
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
  revoked_at: string | null;
}

/** Tokens still usable first, then the recent used or revoked ones. */
export async function listEnrollments(ctx: Ctx, limit = 50): Promise<EnrollmentView[]> {
  const rows = await ctx.db.select().from(enrollmentTokens).orderBy(desc(enrollmentTokens.createdAt)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    agent_id: r.agentId,
    tags: r.tags,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    used_at: r.usedAt?.toISOString() ?? null,
    used_by: r.usedBy,
    revoked_at: r.revokedAt?.toISOString() ?? null,
  }));
}

export async function revokeEnrollment(ctx: Ctx, by: Operator, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(enrollmentTokens)
      .set({ revokedAt: now })
      .where(and(eq(enrollmentTokens.id, id), isNull(enrollmentTokens.usedAt), isNull(enrollmentTokens.revokedAt)))
      .returning({ id: enrollmentTokens.id });
    if (!row) throw new AppError('not_found', 'no unused enrollment token with that id');
    await recordAction(tx, { operator: by.name, action: 'enrollment.revoke', targetKind: 'enrollment', targetId: id, now });
  });
}
