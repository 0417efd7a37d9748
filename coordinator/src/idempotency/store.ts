import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/database.ts';
import { idempotencyKeys } from '../db/schema.ts';

/**
 * The idempotency_keys table: one row per (scope, key). A row is either *in progress* (status
 * null: a request holds the key until `expires_at`, the lock bound) or *answered* (status, sealed
 * body and headers, replayed until `expires_at`, the retention). `created_at` is the claim time
 * and fences the holder: a request whose lock ran out and was taken over cannot write its
 * answer over the new holder's.
 */

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
/** Response headers as stored: multi-valued ones (one WWW-Authenticate per payment method) as arrays. */
export type StoredHeaders = Record<string, string | string[]>;

export interface Claim {
  scope: string;
  key: string;
  requestHash: string;
  now: Date;
  /** Until when the claimant holds the key (now + lock bound). */
  lockUntil: Date;
}

/** Rows written before expiry was recorded (expires_at null) are treated as expiring this long after creation. */
export const LEGACY_ROW_TTL_MS = 24 * 3600_000;

const rowKey = (scope: string, key: string) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

/** Past its expiry: an answer past retention, or a holder past its lock bound (crashed). */
const expiredAt = (now: Date) =>
  or(lte(idempotencyKeys.expiresAt, now), and(isNull(idempotencyKeys.expiresAt), lte(idempotencyKeys.createdAt, new Date(now.getTime() - LEGACY_ROW_TTL_MS))));

/**
 * Claims the key for a new request: inserts the in-progress row, or takes over a row whose
 * expiry has passed (an answer past retention, or a holder that crashed). Returns the claim time
 * (the fence) when claimed, else the row that holds the key.
 */
export async function claimKey(db: DbOrTx, c: Claim): Promise<{ claimed: Date } | { held: IdempotencyRow | null }> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ scope: c.scope, key: c.key, requestHash: c.requestHash, createdAt: c.now, expiresAt: c.lockUntil })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length) return { claimed: c.now };
  const takenOver = await db
    .update(idempotencyKeys)
    .set({ requestHash: c.requestHash, status: null, body: null, headers: null, createdAt: c.now, expiresAt: c.lockUntil })
    .where(and(rowKey(c.scope, c.key), expiredAt(c.now)))
    .returning({ key: idempotencyKeys.key });
  if (takenOver.length) return { claimed: c.now };
  const [held] = await db.select().from(idempotencyKeys).where(rowKey(c.scope, c.key)).limit(1);
  return { held: held ?? null };
}

/** Stores the answer of the request that claimed the key at `claimedAt`; false when it no longer holds it. */
export async function saveAnswer(
  db: DbOrTx,
  a: { scope: string; key: string; claimedAt: Date; status: number; body: unknown; headers: StoredHeaders; expiresAt: Date },
): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    // The column is typed Record<string, string>; jsonb stores the arrays of multi-valued headers as they are.
    .set({ status: a.status, body: a.body, headers: a.headers as Record<string, string>, expiresAt: a.expiresAt })
    .where(and(rowKey(a.scope, a.key), eq(idempotencyKeys.createdAt, a.claimedAt), isNull(idempotencyKeys.status)))
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}

/** Frees a key its holder could not answer (a 5xx, or an answer that cannot be stored): the next retry runs. */
export async function releaseKey(db: DbOrTx, r: { scope: string; key: string; claimedAt: Date }): Promise<void> {
  await db.delete(idempotencyKeys).where(and(rowKey(r.scope, r.key), eq(idempotencyKeys.createdAt, r.claimedAt), isNull(idempotencyKeys.status)));
}

/**
 * Deletes rows past their expiry: answers past retention and keys left in progress by a crash
 * past their lock bound (a retry takes such a key over anyway; this keeps the table small). At
 * most `limit` rows per call; returns how many were deleted. The sweeper calls it every sweep.
 */
export async function deleteExpiredIdempotencyKeys(db: DbOrTx, now: Date, opts: { limit?: number } = {}): Promise<number> {
  const limit = opts.limit ?? 1000;
  const legacyCutoff = new Date(now.getTime() - LEGACY_ROW_TTL_MS);
  const deleted = await db
    .delete(idempotencyKeys)
    .where(
      sql`(${idempotencyKeys.scope}, ${idempotencyKeys.key}) in (
        select scope, key from idempotency_keys
        where expires_at <= ${now.toISOString()}::timestamptz
           or (expires_at is null and created_at <= ${legacyCutoff.toISOString()}::timestamptz)
        limit ${limit})`,
    )
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
