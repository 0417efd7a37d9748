import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { ledgerEntries } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { processRefunds } from '../payments/refunder.ts';
import type { LedgerRow } from '../payments/ledger.ts';
import { recordAction } from './audit.ts';
import type { Operator } from './operator-auth.ts';

/** Amounts are strings: USDC base units do not fit a JSON number's safe range in every sum. */
export interface LedgerView {
  id: number;
  job_id: string | null;
  rail: string;
  kind: string;
  state: string;
  amount: string;
  currency: string;
  reference: string | null;
  charge_reference: string | null;
  payer: string | null;
  attempts: number;
  last_error: string | null;
  chain_tx_hash: string | null;
  created_at: string;
  updated_at: string;
}

export const ledgerView = (r: LedgerRow): LedgerView => ({
  id: r.id,
  job_id: r.jobId,
  rail: r.rail,
  kind: r.kind,
  state: r.state,
  amount: r.amount.toString(),
  currency: r.currency,
  reference: r.reference,
  charge_reference: r.chargeReference,
  payer: r.payer,
  attempts: r.attempts,
  last_error: r.lastError,
  chain_tx_hash: r.chainTx?.hash ?? null,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

export async function jobLedger(ctx: Ctx, jobId: string): Promise<LedgerView[]> {
  const rows = await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId)).orderBy(asc(ledgerEntries.id));
  return rows.map(ledgerView);
}

export interface DayTotal {
  day: string;
  rail: string;
  currency: string;
  kind: string;
  state: string;
  count: number;
  amount: string;
}

export interface MoneySummary {
  days: DayTotal[];
  /** Holds authorized and neither captured nor released yet. */
  open_holds: LedgerView[];
  /** Refunds queued or on their way (pending, sending). */
  refunds_pending: LedgerView[];
  /** Refunds the refunder gave up on: an operator reconciles or resolves them. */
  refunds_failed: LedgerView[];
  /** Charges whose outcome is still being reconciled. */
  charges_pending: LedgerView[];
}

/** The books for the console: totals per day, rail, kind and state over `days` days, and what needs an operator. */
export async function moneySummary(ctx: Ctx, days = 14): Promise<MoneySummary> {
  const since = addMs(ctx.clock.now(), -days * 86_400_000);
  const day = sql<string>`to_char(date_trunc('day', ${ledgerEntries.createdAt} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;
  const [totals, holds, refunds, charges] = await Promise.all([
    ctx.db
      .select({
        day,
        rail: ledgerEntries.rail,
        currency: ledgerEntries.currency,
        kind: ledgerEntries.kind,
        state: ledgerEntries.state,
        count: sql<number>`count(*)::int`,
        amount: sql<string>`sum(${ledgerEntries.amount})::text`,
      })
      .from(ledgerEntries)
      .where(gte(ledgerEntries.createdAt, since))
      .groupBy(day, ledgerEntries.rail, ledgerEntries.currency, ledgerEntries.kind, ledgerEntries.state)
      .orderBy(desc(day), ledgerEntries.rail, ledgerEntries.kind),
    ctx.db
      .select()
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.kind, 'hold'),
          inArray(ledgerEntries.state, ['done', 'pending']),
          sql`NOT EXISTS (SELECT 1 FROM ledger_entries s WHERE s.kind IN ('capture', 'release') AND s.job_id = ${ledgerEntries.jobId} AND s.state = 'done')`,
        ),
      )
      .orderBy(asc(ledgerEntries.id))
      .limit(200),
    ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.kind, 'refund'), inArray(ledgerEntries.state, ['pending', 'sending', 'failed'])))
      .orderBy(asc(ledgerEntries.id))
      .limit(500),
    ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.kind, 'charge'), eq(ledgerEntries.state, 'pending')))
      .orderBy(asc(ledgerEntries.id))
      .limit(200),
  ]);
  return {
    days: totals.map((t) => ({ ...t, count: Number(t.count), amount: t.amount ?? '0' })),
    open_holds: holds.map(ledgerView),
    refunds_pending: refunds.filter((r) => r.state !== 'failed').map(ledgerView),
    refunds_failed: refunds.filter((r) => r.state === 'failed').map(ledgerView),
    charges_pending: charges.map(ledgerView),
  };
}

async function failedRefund(ctx: Ctx, id: number): Promise<LedgerRow> {
  const [row] = await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id)).limit(1);
  if (row?.kind !== 'refund') throw new AppError('not_found', `no refund ${id}`);
  if (row.state !== 'failed') throw new AppError('conflict', `refund ${id} is ${row.state}, not failed`);
  return row;
}

/**
 * Hands a failed refund back to the refunder, safely: one whose transfer was signed (its hash is on
 * the row: the chain outcome may be unknown) goes back to `sending`, so it is decided by that hash
 * first (landed → done; provably dropped → sent again; else re-broadcast the same bytes) and never
 * sent a second time while the first could land. Any other (card: the processor's idempotency key
 * guards it; chain: never signed) is queued again. Its attempt budget starts over; the refunder then
 * runs at once. Answers the row as it stands after that run.
 */
export async function reconcileRefund(ctx: Ctx, by: Operator, id: number): Promise<LedgerView> {
  const row = await failedRefund(ctx, id);
  const now = ctx.clock.now();
  const to = row.chainTx ? 'sending' : 'pending';
  await ctx.db.transaction(async (tx) => {
    // `sending` rows are looked up by age: the epoch makes it due at once.
    await tx
      .update(ledgerEntries)
      .set({ state: to, attempts: 0, updatedAt: to === 'sending' ? new Date(0) : now })
      .where(and(eq(ledgerEntries.id, id), eq(ledgerEntries.state, 'failed')));
    await recordAction(tx, {
      operator: by.name,
      action: 'refund.reconcile',
      targetKind: 'refund',
      targetId: String(id),
      detail: { job_id: row.jobId, rail: row.rail, to, last_error: row.lastError },
      now,
    });
  });
  await processRefunds(ctx).catch((err: unknown) =>
    ctx.logger.warn({ err: (err as Error).message, refund: id }, 'refund run after reconcile failed; the sweeper retries'),
  );
  const [after] = await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id)).limit(1);
  return ledgerView(after!);
}

/** An operator settled a failed refund outside the service (a manual transfer): recorded as done with their note. */
export async function resolveRefund(ctx: Ctx, by: Operator, id: number, note: string): Promise<LedgerView> {
  const row = await failedRefund(ctx, id);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [after] = await tx
      .update(ledgerEntries)
      .set({ state: 'done', reference: row.reference ?? `manual:${by.name}`, lastError: `resolved by ${by.name}: ${note}`, updatedAt: now })
      .where(and(eq(ledgerEntries.id, id), eq(ledgerEntries.state, 'failed')))
      .returning();
    if (!after) throw new AppError('conflict', `refund ${id} changed; look again`);
    await recordAction(tx, {
      operator: by.name,
      action: 'refund.resolve',
      targetKind: 'refund',
      targetId: String(id),
      detail: { job_id: row.jobId, note },
      now,
    });
    return ledgerView(after);
  });
}
