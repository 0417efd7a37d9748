import { and, eq } from 'drizzle-orm';
import type { Rail } from '@cutroom/shared/payment-methods';
import type { DbOrTx, Tx } from '../db/database.ts';
import { jobs, ledgerEntries } from '../db/schema.ts';
import type { Settlement } from './types.ts';

export type LedgerKind = 'charge' | 'hold' | 'capture' | 'release' | 'refund';
export type LedgerRow = typeof ledgerEntries.$inferSelect;

export interface Movement {
  jobId: string | null;
  rail: Rail;
  kind: LedgerKind;
  amount: bigint;
  currency: string;
  state: 'pending' | 'done' | 'failed';
  reference?: string | null;
  chargeReference?: string | null;
  payer?: string | null;
  idempotencyKey: string;
  lastError?: string | null;
  now: Date;
}

/**
 * Records one movement. The idempotency key is unique: recording the same movement again
 * returns the row already there instead of adding a second one.
 */
export async function recordMovement(db: DbOrTx, m: Movement): Promise<LedgerRow> {
  const [row] = await db
    .insert(ledgerEntries)
    .values({
      jobId: m.jobId,
      rail: m.rail,
      kind: m.kind,
      amount: m.amount,
      currency: m.currency,
      state: m.state,
      reference: m.reference ?? null,
      chargeReference: m.chargeReference ?? null,
      payer: m.payer ?? null,
      idempotencyKey: m.idempotencyKey,
      lastError: m.lastError ?? null,
      createdAt: m.now,
      updatedAt: m.now,
    })
    // Only a repeat of the same movement is absorbed; any other unique rule (one charge per
    // settled transaction, one refund per transaction) raises.
    .onConflictDoNothing({ target: ledgerEntries.idempotencyKey })
    .returning();
  if (row) return row;
  const [existing] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.idempotencyKey, m.idempotencyKey)).limit(1);
  return existing!;
}

/**
 * The settled charge that paid a job (its reference is the job's payment_reference). A job paid by
 * a hold (an agent product) has none: a hold is captured or released (holds.ts), never refunded.
 */
export async function findCharge(db: DbOrTx, jobId: string): Promise<LedgerRow | null> {
  const [job] = await db.select({ ref: jobs.paymentReference }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job?.ref) return null;
  const [row] = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.jobId, jobId), eq(ledgerEntries.kind, 'charge'), eq(ledgerEntries.state, 'done'), eq(ledgerEntries.reference, job.ref)))
    .limit(1);
  return row ?? null;
}

export const refundKey = (jobId: string): string => `refund:${jobId}`;

/**
 * In the transaction that fails a job: queue the refund of its charge (if money was taken).
 * One refund per job, ever: the key is the job id. The refunder executes it on the rail.
 */
export async function queueRefund(tx: Tx, jobId: string, now: Date): Promise<LedgerRow | null> {
  const charge = await findCharge(tx, jobId);
  if (!charge || charge.amount === 0n) return null;
  return recordMovement(tx, {
    jobId,
    rail: charge.rail as Rail,
    kind: 'refund',
    amount: charge.amount,
    currency: charge.currency,
    state: 'pending',
    payer: charge.payer,
    reference: null,
    chargeReference: charge.reference,
    idempotencyKey: refundKey(jobId),
    now,
  });
}

/**
 * In the transaction that fails a bundle's child: queue the refund of that child's share of the
 * bundle's charge (charge × child price / bundle price: one clip's price), not the whole bundle.
 * One refund per child, ever (keyed by the child id, booked under it); the refunder sends it as a
 * partial refund of the bundle's payment.
 */
export async function queueShareRefund(tx: Tx, child: { id: string; parentJobId: string; priceCents: number }, now: Date): Promise<LedgerRow | null> {
  const charge = await findCharge(tx, child.parentJobId);
  if (!charge || charge.amount === 0n) return null;
  const [bundle] = await tx.select({ priceCents: jobs.priceCents }).from(jobs).where(eq(jobs.id, child.parentJobId)).limit(1);
  if (!bundle || bundle.priceCents <= 0) return null;
  const share = (charge.amount * BigInt(child.priceCents)) / BigInt(bundle.priceCents);
  if (share <= 0n) return null;
  return recordMovement(tx, {
    jobId: child.id,
    rail: charge.rail as Rail,
    kind: 'refund',
    amount: share,
    currency: charge.currency,
    state: 'pending',
    payer: charge.payer,
    reference: null,
    chargeReference: charge.reference,
    idempotencyKey: refundKey(child.id),
    now,
  });
}

/** A second payment for an already-paid job goes back to its payer. */
export async function queueDuplicateRefund(tx: Tx, jobId: string, s: Settlement, now: Date): Promise<void> {
  await queueSettlementRefund(tx, jobId, s, now, 'duplicate');
}

/**
 * Pays a settlement back in full: `duplicate` (its job was already paid another way) or
 * `unclaimed` (it confirmed only after the request that made it had ended, and there is no job
 * to mark paid: paid creation, the smoke test). One refund per settlement, keyed by its reference.
 */
export async function queueSettlementRefund(tx: Tx, jobId: string | null, s: Settlement, now: Date, why: 'duplicate' | 'unclaimed'): Promise<void> {
  await recordMovement(tx, {
    jobId,
    rail: s.rail,
    kind: 'refund',
    amount: s.amount,
    currency: s.currency,
    state: 'pending',
    payer: s.payer,
    reference: null,
    chargeReference: s.reference,
    idempotencyKey: `refund:${why}:${s.reference}`,
    now,
  });
}

/** USD cents a settlement is worth (USDC is 6-decimal and USD-pegged: 10_000 units = 1 cent). */
export function settlementCents(s: Settlement): number {
  return s.rail === 'card' ? Number(s.amount) : Number(s.amount / 10_000n);
}
