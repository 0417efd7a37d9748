// The life of one consumed credential (payment_consumptions), shared by the gate (a paid request)
// and the reconciler (the sweeper's cadence). A row is inserted `settling` before the rail is
// touched and ends one of three ways, each in one transaction with its ledger row:
// - settled: consumption `settled` + ledger charge `done` + the caller's onSettled (job paid);
// - failed (the rail was reached, no money moved): ledger charge `failed`, consumption deleted so
//   the payer can pay again;
// - released (nothing reached the rail): consumption deleted, no ledger row.
// In between it may be `pending` (outcome unknown: a pending ledger charge says so) or `stuck`
// (an operator must look); the reconciler asks the rail again with `recovery`.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Rail } from '@cutroom/shared/payment-methods';
import type { Db, Tx } from '../db/database.ts';
import { isUniqueViolation } from '../db/pg-errors.ts';
import { ledgerEntries, paymentConsumptions } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import type { Billing } from './billing.ts';
import { recordMovement } from './ledger.ts';
import type { SignedTx } from './rails/chain-rail.ts';
import { PaymentProblem, type Settlement } from './types.ts';

export type ConsumptionRow = typeof paymentConsumptions.$inferSelect;

/** The ledger charge (or hold) a consumption stands for (its state and key are the caller's). */
function chargeOf(row: ConsumptionRow) {
  return {
    jobId: row.ledgerJobId,
    rail: (row.rail ?? 'chain') as Rail,
    kind: ledgerKindOf(row.recovery as Recovery | null),
    amount: row.amount ?? 0n,
    currency: row.currency ?? '',
    reference: row.reference,
    payer: row.payer,
  };
}

/** What the reconciler needs to ask the rail again about one consumption. */
export type Recovery =
  | {
      rail: 'chain';
      from: `0x${string}`;
      nonce: `0x${string}`;
      /** base units, decimal */
      value: string;
      /** unix seconds, decimal */
      validBefore: string;
      /** our relay, recorded before it was broadcast */
      tx?: SignedTx;
    }
  | {
      rail: 'card';
      // The Shared Payment Token is kept only while the outcome is open (cleared once settled, the
      // row deleted once failed): the processor call is re-run with the same parameters and
      // idempotency key, which replays the first result or runs it now.
      spt: string;
      amountCents: number;
      currency: string;
      idempotencyKey: string;
      metadata: Record<string, string>;
      /** `manual`: a hold (Charge.hold), re-run as an authorization, booked as a `hold`. */
      captureMethod?: 'manual';
    };

/** What the ledger books for a consumption: a hold for a manual-capture card payment, else a charge. */
export const ledgerKindOf = (r: Recovery | null | undefined): 'charge' | 'hold' => (r?.rail === 'card' && r.captureMethod === 'manual' ? 'hold' : 'charge');

/** One settlement attempt as the gate starts it. */
export interface Attempt {
  /** the authorization's consumption key (consumption-key.ts) */
  key: string;
  /** the MPP challenge the credential answered; null for x402 */
  challengeId: string | null;
  /** what it pays for (consumption-key.ts `purposeOf`) */
  purpose: string;
  /** wire method: evm | stripe | x402 */
  method: string;
  rail: Rail;
  /** the job the credential pays (unique: one credential per job), or null */
  jobId: string | null;
  /** the job the charge is booked under */
  ledgerJobId: string | null;
  amount: bigint;
  currency: string;
  payer: string | null;
  recovery: Recovery;
}

/** What asking the rail gave. `unknown`: not decided yet; `anomaly`: needs a person. */
export type Outcome =
  | { status: 'settled'; reference: string }
  | { status: 'failed'; reason: string }
  | { status: 'unknown'; reason: string }
  | { status: 'anomaly'; reason: string };

/** A request (or a crashed coordinator) left a row `settling` this long ago: reconcile it. */
export function settlingStaleMs(billing: Billing): number {
  return Math.max(3 * 60_000, 2 * (billing.chain?.receiptTimeoutMs ?? 0) + 60_000);
}
/** An open outcome this old is marked `stuck` for an operator (and re-checked every STUCK_RECHECK_MS). */
export const STUCK_AFTER_MS = 60 * 60_000;
const STUCK_RECHECK_MS = 30 * 60_000;
/** Re-checks of an open outcome back off: 2 s, 4 s, 8 s … at most 5 min. */
export function nextCheckDelayMs(attempts: number): number {
  return Math.min(2_000 * 2 ** Math.min(attempts, 20), 5 * 60_000);
}

const OPEN_STATES = ['settling', 'pending', 'stuck'];
const chargeKey = (key: string) => `charge:${key}`;

/** The row already holding this credential or this job, when the insert lost. */
export type ClaimConflict = { kind: 'same-credential'; row: ConsumptionRow } | { kind: 'job-taken'; row: ConsumptionRow | null };

/** Inserts the consumption `settling`; on a conflict returns the row in the way. */
export async function claimConsumption(db: Db, a: Attempt, now: Date): Promise<ClaimConflict | null> {
  const rows = await db
    .insert(paymentConsumptions)
    .values({
      key: a.key,
      challengeId: a.challengeId,
      purpose: a.purpose,
      method: a.method,
      jobId: a.jobId,
      state: 'settling',
      createdAt: now,
      updatedAt: now,
      rail: a.rail,
      ledgerJobId: a.ledgerJobId,
      amount: a.amount,
      currency: a.currency,
      payer: a.payer,
      recovery: a.recovery,
    })
    .onConflictDoNothing()
    .returning({ key: paymentConsumptions.key });
  if (rows.length) return null;
  const [same] = await db.select().from(paymentConsumptions).where(eq(paymentConsumptions.key, a.key)).limit(1);
  if (same) return { kind: 'same-credential', row: same };
  const [other] = a.jobId ? await db.select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, a.jobId)).limit(1) : [];
  return { kind: 'job-taken', row: other ?? null };
}

/** Whether the reconciler (or a retry of the same credential) may decide this row now. */
export function isOpen(row: ConsumptionRow, now: Date, billing: Billing): boolean {
  if (row.state === 'pending' || row.state === 'stuck') return true;
  return row.state === 'settling' && (row.updatedAt ?? row.createdAt).getTime() < now.getTime() - settlingStaleMs(billing);
}

/** Records our signed relay on the consumption before it is broadcast (chain). */
export async function recordChainTx(db: Db, key: string, tx: SignedTx, now: Date): Promise<void> {
  await db
    .update(paymentConsumptions)
    .set({
      reference: tx.hash,
      recovery: sql`jsonb_set(${paymentConsumptions.recovery}, '{tx}', ${JSON.stringify(tx)}::jsonb)`,
      updatedAt: now,
    })
    .where(eq(paymentConsumptions.key, key));
}

/** Nothing reached the rail: forget the consumption, so the same credential can be presented again. */
export async function releaseConsumption(db: Db, key: string): Promise<void> {
  await db.delete(paymentConsumptions).where(and(eq(paymentConsumptions.key, key), eq(paymentConsumptions.state, 'settling')));
}

export function settlementOf(row: Pick<ConsumptionRow, 'rail' | 'method' | 'amount' | 'currency' | 'payer'>, reference: string): Settlement {
  return { rail: row.rail as Rail, method: row.method, amount: row.amount ?? 0n, currency: row.currency ?? '', reference, payer: row.payer };
}

/**
 * Settled: in one transaction, the consumption becomes `settled`, the ledger charge `done`, and
 * `onSettled` runs (the job is marked paid). Conditional on the row still being open, so the
 * request and the reconciler racing on one payment book it once: `already` when the other won.
 */
export async function settleConsumption(
  db: Db,
  key: string,
  reference: string,
  /** `kind`: what the ledger books (default a charge; a hold for Charge.hold, see ledgerKindOf). */
  book: { ledgerJobId: string | null; kind?: 'charge' | 'hold' },
  onSettled: (tx: Tx, s: Settlement) => Promise<void>,
  now: Date,
): Promise<{ result: 'applied' | 'already'; settlement: Settlement }> {
  try {
    return await bookSettlement(db, key, reference, book, onSettled, now);
  } catch (err) {
    if (isUniqueViolation(err, 'ledger_charge_reference_uq')) throw new ReferenceTakenError(reference);
    throw err;
  }
}

/**
 * The transaction (or PaymentIntent) a consumption settled with is already booked as another
 * charge: one payment cannot pay two things, so this one is not booked. An operator looks.
 */
export class ReferenceTakenError extends Error {
  constructor(reference: string) {
    super(`payment ${reference} already pays another charge; not booked twice`);
    this.name = 'ReferenceTakenError';
  }
}

function bookSettlement(
  db: Db,
  key: string,
  reference: string,
  book: { ledgerJobId: string | null; kind?: 'charge' | 'hold' },
  onSettled: (tx: Tx, s: Settlement) => Promise<void>,
  now: Date,
): Promise<{ result: 'applied' | 'already'; settlement: Settlement }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(paymentConsumptions)
      .set({ state: 'settled', reference, recovery: null, lastError: null, nextCheckAt: null, ledgerJobId: book.ledgerJobId, updatedAt: now })
      .where(and(eq(paymentConsumptions.key, key), inArray(paymentConsumptions.state, OPEN_STATES)))
      .returning();
    if (!row) {
      const [done] = await tx.select().from(paymentConsumptions).where(eq(paymentConsumptions.key, key)).limit(1);
      if (done?.state === 'settled' && done.reference) return { result: 'already' as const, settlement: settlementOf(done, done.reference) };
      throw new AppError('conflict', 'this payment was resolved by another request meanwhile; repeat the call');
    }
    const kind = book.kind ?? 'charge';
    const s: Settlement = { ...settlementOf(row, reference), ...(kind === 'hold' && { intent: 'hold' as const }) };
    const [open] = await tx
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.idempotencyKey, chargeKey(key)))
      .limit(1);
    if (open) {
      await tx
        .update(ledgerEntries)
        .set({ state: 'done', reference, jobId: book.ledgerJobId, lastError: null, updatedAt: now })
        .where(eq(ledgerEntries.id, open.id));
    } else {
      await recordMovement(tx, {
        jobId: book.ledgerJobId,
        rail: s.rail,
        kind,
        amount: s.amount,
        currency: s.currency,
        state: 'done',
        reference,
        payer: s.payer,
        idempotencyKey: chargeKey(key),
        now,
      });
    }
    await onSettled(tx, s);
    return { result: 'applied' as const, settlement: s };
  });
}

/**
 * Failed after the rail was reached (a relay reverted, was dropped, expired unused; a re-run
 * card charge was declined): a ledger charge row `failed` records the attempt, and the
 * consumption is deleted so the payer can pay again. Returns false when the row was no longer open.
 */
export async function failConsumption(db: Db, key: string, reason: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(paymentConsumptions)
      .where(and(eq(paymentConsumptions.key, key), inArray(paymentConsumptions.state, OPEN_STATES)))
      .returning();
    if (!row) return false;
    // Re-keyed per attempt: the credential may be presented again, and its charge key stays free.
    const failedKey = `${chargeKey(key)}:failed:${now.getTime()}`;
    const [open] = await tx
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.idempotencyKey, chargeKey(key)))
      .limit(1);
    if (open && open.state !== 'done') {
      await tx
        .update(ledgerEntries)
        .set({ state: 'failed', idempotencyKey: failedKey, reference: row.reference ?? open.reference, lastError: reason, updatedAt: now })
        .where(eq(ledgerEntries.id, open.id));
    } else if (!open) {
      await recordMovement(tx, { ...chargeOf(row), state: 'failed', idempotencyKey: failedKey, lastError: reason, now });
    }
    return true;
  });
}

/**
 * Outcome not known yet: the consumption becomes `pending` with the next check backed off (or
 * `stuck` for an operator on an anomaly, or once open longer than STUCK_AFTER_MS), and a pending
 * ledger charge says money may have moved. Returns the new state, or null when no longer open.
 */
export async function deferConsumption(db: Db, key: string, outcome: Outcome, now: Date): Promise<{ state: 'pending' | 'stuck'; row: ConsumptionRow } | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(paymentConsumptions)
      .where(and(eq(paymentConsumptions.key, key), inArray(paymentConsumptions.state, OPEN_STATES)))
      .limit(1);
    if (!row) return null;
    const reason = 'reason' in outcome ? outcome.reason : outcome.status;
    const isStuck = outcome.status === 'anomaly' || now.getTime() - row.createdAt.getTime() >= STUCK_AFTER_MS;
    const state = isStuck ? ('stuck' as const) : ('pending' as const);
    const delay = isStuck ? STUCK_RECHECK_MS : nextCheckDelayMs(row.attempts);
    const [updated] = await tx
      .update(paymentConsumptions)
      .set({ state, attempts: row.attempts + 1, nextCheckAt: new Date(now.getTime() + delay), lastError: reason, updatedAt: now })
      .where(eq(paymentConsumptions.key, key))
      .returning();
    const booked = await recordMovement(tx, { ...chargeOf(row), state: 'pending', idempotencyKey: chargeKey(key), now });
    if (booked.state === 'pending') {
      await tx
        .update(ledgerEntries)
        .set({ reference: row.reference ?? booked.reference, lastError: reason, attempts: booked.attempts + 1, updatedAt: now })
        .where(eq(ledgerEntries.id, booked.id));
    }
    return { state, row: updated ?? row };
  });
}

/** Asks the rail what became of an open consumption (no waiting). Never throws: trouble is `unknown`. */
export function checkConsumption(billing: Billing, row: Pick<ConsumptionRow, 'recovery'>): Promise<Outcome> {
  return checkRecovery(billing, row.recovery as Recovery | null);
}

export async function checkRecovery(billing: Billing, r: Recovery | null): Promise<Outcome> {
  if (!r) return { status: 'anomaly', reason: 'no recovery data on this consumption' };
  if (r.rail === 'chain') {
    if (!billing.chain) return { status: 'unknown', reason: 'chain rail not configured' };
    try {
      const st = await billing.chain.checkSettlement({
        from: r.from,
        nonce: r.nonce,
        value: BigInt(r.value),
        validBefore: BigInt(r.validBefore),
        tx: r.tx ?? null,
      });
      return st.status === 'settled' ? { status: 'settled', reference: st.txHash } : st;
    } catch (err) {
      return { status: 'unknown', reason: err instanceof Error ? err.message : String(err) };
    }
  }
  if (!billing.card) return { status: 'unknown', reason: 'card rail not configured' };
  try {
    // Same parameters, same idempotency key: the processor replays the first result, or runs it now.
    const input = { spt: r.spt, amountCents: r.amountCents, currency: r.currency, idempotencyKey: r.idempotencyKey, metadata: r.metadata };
    const { paymentIntentId } = r.captureMethod === 'manual' ? await billing.card.authorizeHold(input) : await billing.card.chargeSpt(input);
    return { status: 'settled', reference: paymentIntentId };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // A decline or a refused request is definite: nothing was charged.
    if (err instanceof PaymentProblem || err instanceof AppError) return { status: 'failed', reason };
    return { status: 'unknown', reason };
  }
}
