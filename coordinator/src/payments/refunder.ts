import { and, asc, eq } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { ledgerEntries } from '../db/schema.ts';
import type { LedgerRow } from './ledger.ts';

const MAX_CARD_ATTEMPTS = 20;

/**
 * Pays out queued refunds (ledger rows kind=refund, state=pending), each at most once:
 * - card: refund (or cancel an uncaptured hold) under the processor idempotency key
 *   `refund:<ledger key>`, so a retry after a crash or timeout cannot refund twice;
 * - chain: the row is claimed (pending → sending) before the transfer. A transfer whose outcome
 *   is unknown (the node failed after broadcast) is marked `failed` for an operator to reconcile
 *   instead of being re-sent: paying back twice is worse than paying back late.
 */
export async function processRefunds(ctx: Ctx): Promise<{ done: number; failed: number }> {
  const rows = await ctx.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.kind, 'refund'), eq(ledgerEntries.state, 'pending')))
    .orderBy(asc(ledgerEntries.id))
    .limit(20);
  const result = { done: 0, failed: 0 };
  for (const row of rows) {
    const outcome = row.rail === 'card' ? await refundCard(ctx, row) : await refundChain(ctx, row);
    if (outcome === 'done') result.done++;
    if (outcome === 'failed') result.failed++;
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

async function refundChain(ctx: Ctx, row: LedgerRow): Promise<'done' | 'failed' | 'retry'> {
  const chain = ctx.billing.chain;
  const to = row.payer?.split(':').at(-1);
  if (!chain || !to?.startsWith('0x')) return fail(ctx, row, 'chain rail not configured or payer unknown');
  const claimed = await ctx.db
    .update(ledgerEntries)
    .set({ state: 'sending', updatedAt: ctx.clock.now() })
    .where(and(eq(ledgerEntries.id, row.id), eq(ledgerEntries.state, 'pending')))
    .returning({ id: ledgerEntries.id });
  if (!claimed.length) return 'retry';
  try {
    const { txHash } = await chain.refund(to as `0x${string}`, row.amount);
    await finish(ctx, row, 'done', { reference: txHash });
    ctx.logger.info({ job_id: row.jobId, tx: txHash, amount: row.amount.toString() }, 'chain refund sent');
    return 'done';
  } catch (err) {
    return fail(ctx, row, `outcome unknown, reconcile before retrying: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function fail(ctx: Ctx, row: LedgerRow, message: string): Promise<'failed'> {
  await finish(ctx, row, 'failed', { lastError: message });
  ctx.logger.error({ job_id: row.jobId, ledger_id: row.id, rail: row.rail }, `refund needs an operator: ${message}`);
  return 'failed';
}
