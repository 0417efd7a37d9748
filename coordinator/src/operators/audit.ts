import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/database.ts';
import { operatorActions } from '../db/schema.ts';

export type ActionTarget = 'job' | 'agent' | 'refund' | 'enrollment' | 'operator';

/** Who did what to what. Written in the transaction of the change it records, so neither exists without the other. */
export async function recordAction(
  db: DbOrTx,
  a: { operator: string; action: string; targetKind: ActionTarget; targetId: string; detail?: Record<string, unknown>; now: Date },
): Promise<void> {
  await db.insert(operatorActions).values({
    operator: a.operator,
    action: a.action,
    targetKind: a.targetKind,
    targetId: a.targetId,
    detail: a.detail ?? null,
    createdAt: a.now,
  });
}

export interface ActionView {
  id: number;
  operator: string;
  action: string;
  target_kind: string;
  target_id: string;
  detail: Record<string, unknown> | null;
  at: string;
}

/** Newest first: one target's history, or the whole farm's. */
export async function listActions(db: DbOrTx, target?: { kind: ActionTarget; id: string }, limit = 100): Promise<ActionView[]> {
  const rows = await db
    .select()
    .from(operatorActions)
    .where(target ? and(eq(operatorActions.targetKind, target.kind), eq(operatorActions.targetId, target.id)) : undefined)
    .orderBy(desc(operatorActions.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    operator: r.operator,
    action: r.action,
    target_kind: r.targetKind,
    target_id: r.targetId,
    detail: r.detail ?? null,
    at: r.createdAt.toISOString(),
  }));
}
