import { and, asc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { ledgerEntries } from '../db/schema.ts';
import type { LedgerRow } from './ledger.ts';
import type { RefundStatus, SignedTx } from './rails/chain-rail.ts';
import { BroadcastUncertainError } from './rails/chain-rail.ts';

const MAX_CARD_ATTEMPTS = 20;
/** Chain refunds that provably did not land are sent again at most this many times. */
const MAX_CHAIN_ATTEMPTS = 8;
/** A `sending` row without a recorded transaction is re-queued this long after it was claimed (its
 * sender crashed between the claim and recording the signed transfer). A slow sender still alive
 * cannot broadcast after that: recording is fenced on its claim (see {@link refundChain}). */
const UNSIGNED_SENDING_STALE_MS = 30_000;
/** A recorded refund transaction is looked up this long after the row last changed. Looking is
 * read-only (plus re-sending the same bytes), so it may overlap a sender still waiting for it. */
const SIGNED_SENDING_RECHECK_MS = 10_000;

/**
 * Pays out queued refunds (ledger rows kind=refund, state=pending), each at most once:
 * - card: refund (or cancel an uncaptured hold) under the processor idempotency key
 *   `refund:<ledger key>`, so a retry after a crash or timeout cannot refund twice;
 * - chain: the row is claimed (pending → sending), the transfer is signed and recorded on the row
 *   (`chain_tx`, `reference` = its hash) BEFORE it is broadcast, then its receipt is awaited. A
 *   refund whose receipt did not come, or whose sender crashed, stays `sending` and is reconciled
 *   by its hash ({@link reconcileSendingRefunds}): landed → done; reverted or dropped (its nonce
 *   went to another transaction) → queued again; otherwise the same signed bytes are re-broadcast
 *   and it is asked about again later. A refund is never sent a second time while the first could
 *   still land.
 */
export async function processRefunds(ctx: Ctx): Promise<{ done: number; failed: number; requeued: number }> {
  const result = { done: 0, failed: 0, requeued: 0 };
  const reconciled = await reconcileSendingRefunds(ctx);
  result.done += reconciled.done;
  result.failed += reconciled.failed;
  result.requeued += reconciled.requeued;
  const now = ctx.clock.now();
  // A retry waits 2^attempts seconds (at most 5 minutes) after the last try: an outage is waited out, not burnt through.
  const isDue = or(
    eq(ledgerEntries.attempts, 0),
    sql`${ledgerEntries.updatedAt} <= ${now.toISOString()}::timestamptz - least(power(2, ${ledgerEntries.attempts}), 300) * interval '1 second'`,
  );
  const rows = await ctx.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.kind, 'refund'), eq(ledgerEntries.state, 'pending'), isDue))
    .orderBy(asc(ledgerEntries.id))
    .limit(20);
  for (const row of rows) {
    const outcome = row.rail === 'card' ? await refundCard(ctx, row) : await refundChain(ctx, row);
    if (outcome === 'done') result.done++;
    if (outcome === 'failed') result.failed++;
    if (outcome === 'requeued') result.requeued++;
  }
  return result;
}

async function finish(ctx: Ctx, row: LedgerRow, state: 'done' | 'failed' | 'pending', patch: { reference?: string; lastError?: string }) {
  await ctx.db
    .update(ledgerEntries)
    .set({ state, reference: patch.reference ?? row.reference, lastError: patch.lastError ?? null, attempts: row.attempts + 1, updatedAt: ctx.clock.now() })
    .where(eq(ledgerEntries.id, row.id));
}

async function refundCard(ctx: Ctx, row: LedgerRow): Promise<'done' | 'failed' | 'retry'> {
  const card = ctx.billing.card;
  if (!card || !row.chargeReference) return fail(ctx, row, 'card rail not configured or charge unknown');
  try {
    const r = await card.refund(row.chargeReference, `refund:${row.idempotencyKey}`, Number(row.amount));
    await finish(ctx, row, 'done', { reference: r.id });
    ctx.logger.info({ job_id: row.jobId, refund: r.id, kind: r.kind, amount: row.amount.toString() }, 'card refund issued');
    return 'done';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (row.attempts + 1 >= MAX_CARD_ATTEMPTS) return fail(ctx, row, message);
    await finish(ctx, row, 'pending', { lastError: message });
    return 'retry';
  }
}

const payeeOf = (row: LedgerRow): `0x${string}` | null => {
  const to = row.payer?.split(':').at(-1);
  return to?.startsWith('0x') ? (to as `0x${string}`) : null;
};

async function refundChain(ctx: Ctx, row: LedgerRow): Promise<'done' | 'failed' | 'retry' | 'requeued'> {
  const chain = ctx.billing.chain;
  const to = payeeOf(row);
  if (!chain || !to) return fail(ctx, row, 'chain rail not configured or payer unknown');
  // The claim's time is its fence: a requeue (or another claim) changes it, and then this sender
  // can no longer record its transaction, so it never broadcasts.
  const claimedAt = ctx.clock.now();
  const claimed = await ctx.db
    .update(ledgerEntries)
    .set({ state: 'sending', chainTx: null, updatedAt: claimedAt })
    .where(and(eq(ledgerEntries.id, row.id), eq(ledgerEntries.state, 'pending')))
    .returning({ id: ledgerEntries.id });
  if (!claimed.length) return 'retry';
  let tx: SignedTx;
  try {
    tx = await chain.sendRefund(to, row.amount, async (signed) => {
      const recorded = await ctx.db
        .update(ledgerEntries)
        .set({ chainTx: signed, reference: signed.hash, updatedAt: ctx.clock.now() })
        .where(sameSend({ id: row.id, chainTx: null, reference: null, updatedAt: claimedAt }))
        .returning({ id: ledgerEntries.id });
      if (!recorded.length) throw new Error('refund row changed while sending; not broadcasting');
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Recorded, and the broadcast may have gone out: leave it `sending` for reconciliation.
    if (err instanceof BroadcastUncertainError) {
      ctx.logger.warn({ job_id: row.jobId, tx: err.tx.hash }, 'chain refund broadcast uncertain; reconciling');
      return 'retry';
    }
    // Nothing was broadcast: queue it again.
    return requeue(ctx, { ...row, state: 'sending', chainTx: null, updatedAt: claimedAt }, message);
  }
  return applyRefundStatus(ctx, { ...row, state: 'sending', chainTx: tx, reference: tx.hash }, await chain.awaitRefund(tx, { to, amount: row.amount }));
}

/**
 * Chain refunds left `sending` (the receipt did not come in time, the broadcast was uncertain,
 * or the coordinator crashed): decided by their recorded transaction. Rows whose transaction was
 * never recorded were never broadcast, and go back to `pending` once their claim is stale.
 */
export async function reconcileSendingRefunds(ctx: Ctx): Promise<{ done: number; failed: number; requeued: number }> {
  const result = { done: 0, failed: 0, requeued: 0 };
  const chain = ctx.billing.chain;
  if (!chain) return result;
  const now = ctx.clock.now().getTime();
  const rows = await ctx.db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.kind, 'refund'),
        eq(ledgerEntries.state, 'sending'),
        or(
          and(isNotNull(ledgerEntries.chainTx), lt(ledgerEntries.updatedAt, new Date(now - SIGNED_SENDING_RECHECK_MS))),
          and(isNull(ledgerEntries.chainTx), lt(ledgerEntries.updatedAt, new Date(now - UNSIGNED_SENDING_STALE_MS))),
        ),
      ),
    )
    .orderBy(asc(ledgerEntries.updatedAt))
    .limit(20);
  for (const row of rows) {
    const to = payeeOf(row);
    let outcome: string;
    if (!row.chainTx) {
      outcome = await requeue(ctx, row, 'the refund was claimed but never broadcast');
    } else if (!to) {
      outcome = await fail(ctx, row, 'payer unknown');
    } else {
      const status: RefundStatus = await chain
        .checkRefund(row.chainTx, { to, amount: row.amount })
        .catch((err: unknown) => ({ status: 'unknown' as const, reason: err instanceof Error ? err.message : String(err) }));
      outcome = await applyRefundStatus(ctx, row, status);
    }
    if (outcome === 'done') result.done++;
    if (outcome === 'failed') result.failed++;
    if (outcome === 'requeued') result.requeued++;
  }
  return result;
}

async function applyRefundStatus(ctx: Ctx, row: LedgerRow, status: RefundStatus): Promise<'done' | 'failed' | 'retry' | 'requeued'> {
  const sending = and(eq(ledgerEntries.id, row.id), eq(ledgerEntries.state, 'sending'));
  const now = ctx.clock.now();
  switch (status.status) {
    case 'done':
      await ctx.db
        .update(ledgerEntries)
        .set({ state: 'done', reference: status.txHash, lastError: null, attempts: row.attempts + 1, updatedAt: now })
        .where(sending);
      ctx.logger.info({ job_id: row.jobId, tx: status.txHash, amount: row.amount.toString() }, 'chain refund sent');
      return 'done';
    case 'resend':
      return requeue(ctx, row, status.reason);
    case 'unknown':
      // Asked again SIGNED_SENDING_RECHECK_MS later.
      await ctx.db.update(ledgerEntries).set({ lastError: status.reason, updatedAt: now }).where(sending);
      return 'retry';
    case 'anomaly':
      return fail(ctx, row, status.reason);
  }
}

/**
 * The `sending` row as its caller saw it: the same recorded transaction, or none recorded since the
 * same claim. Recording and requeueing are conditional on it, so a sender that lost its claim never
 * broadcasts, and a row whose transfer was just recorded (and may be on its way) is never requeued.
 */
function sameSend(row: Pick<LedgerRow, 'id' | 'chainTx' | 'reference' | 'updatedAt'>) {
  return and(
    eq(ledgerEntries.id, row.id),
    eq(ledgerEntries.state, 'sending'),
    row.chainTx && row.reference ? eq(ledgerEntries.reference, row.reference) : and(isNull(ledgerEntries.chainTx), eq(ledgerEntries.updatedAt, row.updatedAt)),
  );
}

/** Provably not landed (or never sent): back to `pending`, to be sent again, a bounded number of times. */
async function requeue(ctx: Ctx, row: LedgerRow, reason: string): Promise<'requeued' | 'failed' | 'retry'> {
  if (row.attempts + 1 >= MAX_CHAIN_ATTEMPTS) return fail(ctx, row, `gave up after ${row.attempts + 1} sends: ${reason}`);
  const moved = await ctx.db
    .update(ledgerEntries)
    .set({ state: 'pending', chainTx: null, lastError: reason, attempts: row.attempts + 1, updatedAt: ctx.clock.now() })
    .where(sameSend(row))
    .returning({ id: ledgerEntries.id });
  // Changed under us (a transfer was recorded meanwhile): the reconciler decides it by its hash.
  return moved.length ? 'requeued' : 'retry';
}

async function fail(ctx: Ctx, row: LedgerRow, message: string): Promise<'failed'> {
  await finish(ctx, row, 'failed', { lastError: message });
  ctx.logger.error({ job_id: row.jobId, ledger_id: row.id, rail: row.rail }, `refund needs an operator: ${message}`);
  return 'failed';
}
