import { and, asc, eq, inArray, isNotNull, lte, lt, or } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { paymentConsumptions } from '../db/schema.ts';
import { queueSettlementRefund } from './ledger.ts';
import {
  checkConsumption,
  deferConsumption,
  failConsumption,
  ledgerKindOf,
  type Recovery,
  ReferenceTakenError,
  settleConsumption,
  settlingStaleMs,
} from './settlement.ts';
import type { Settlement } from './types.ts';

/**
 * Marks a job paid in the transaction that books its reconciled charge; false when the job is no
 * longer pending (or does not exist), and the payment is then refunded. The job side's
 * `markJobPaid` (jobs/mark-paid.ts); the same shape as checkout-webhook.ts's OnCheckoutPaid.
 */
export type OnPaymentSettled = (tx: Tx, jobId: string, s: Settlement, now: Date) => Promise<boolean>;

/** Counts for logs and the sweeper's result (a type alias, so it fits a `Record<string, number>`). */
export type ReconcileResult = {
  settled: number;
  failed: number;
  pending: number;
  stuck: number;
};

/**
 * One reconciliation pass (the sweeper runs it on its cadence): every consumption whose outcome
 * is open and due (`pending`/`stuck` past `next_check_at`, or `settling` older than the
 * settling bound: the request that held it crashed) is asked about again on its rail, without
 * waiting: a chain relay by its recorded hash and the token's `authorizationState`, a card
 * charge by re-running it under its idempotency key. Then:
 * - settled: ledger charge `done`, and `onSettled(tx, jobId, s, now)` marks the job paid; when it
 *   cannot (the job was paid another way, is gone, or there is none: paid creation, the smoke
 *   test), the money is queued back to the payer;
 * - failed: ledger charge `failed`, consumption deleted (the payer can pay again);
 * - still open: next check backed off; past STUCK_AFTER_MS, or on an anomaly, `stuck` for an operator.
 * Racing requests that repeat the same credential (gate.ts) is safe: each end is conditional.
 */
export async function reconcilePayments(ctx: Ctx, onSettled: OnPaymentSettled, opts: { batch?: number } = {}): Promise<ReconcileResult> {
  const now = ctx.clock.now();
  const result: ReconcileResult = { settled: 0, failed: 0, pending: 0, stuck: 0 };
  const staleBefore = new Date(now.getTime() - settlingStaleMs(ctx.billing));
  const due = await ctx.db
    .select()
    .from(paymentConsumptions)
    .where(
      and(
        isNotNull(paymentConsumptions.recovery),
        or(
          and(inArray(paymentConsumptions.state, ['pending', 'stuck']), lte(paymentConsumptions.nextCheckAt, now)),
          and(eq(paymentConsumptions.state, 'settling'), lt(paymentConsumptions.updatedAt, staleBefore)),
        ),
      ),
    )
    .orderBy(asc(paymentConsumptions.nextCheckAt))
    .limit(opts.batch ?? 20);
  for (const row of due) {
    const log = { key: row.key, job_id: row.ledgerJobId, rail: row.rail, reference: row.reference };
    try {
      const outcome = await checkConsumption(ctx.billing, row);
      if (outcome.status === 'settled') {
        const jobId = row.ledgerJobId;
        const { result: r } = await settleConsumption(
          ctx.db,
          row.key,
          outcome.reference,
          { ledgerJobId: jobId, kind: ledgerKindOf(row.recovery as Recovery | null) },
          async (tx, s) => {
            if (jobId && (await onSettled(tx, jobId, s, now))) return;
            await queueSettlementRefund(tx, jobId, s, now, 'unclaimed');
          },
          now,
        );
        if (r === 'applied') {
          result.settled++;
          ctx.logger.info({ ...log, reference: outcome.reference }, 'reconciled payment: settled');
        }
      } else if (outcome.status === 'failed') {
        if (await failConsumption(ctx.db, row.key, outcome.reason, now)) {
          result.failed++;
          ctx.logger.info({ ...log, reason: outcome.reason }, 'reconciled payment: failed, nothing moved');
        }
      } else {
        const deferred = await deferConsumption(ctx.db, row.key, outcome, now);
        if (deferred?.state === 'stuck') {
          result.stuck++;
          if (row.state !== 'stuck') ctx.logger.error({ ...log, reason: outcome.reason }, 'payment outcome needs an operator');
        } else if (deferred) result.pending++;
      }
    } catch (err) {
      if (err instanceof ReferenceTakenError) {
        // Its transaction already pays another charge: never booked twice; an operator looks.
        if ((await deferConsumption(ctx.db, row.key, { status: 'anomaly', reason: err.message }, now))?.state === 'stuck') result.stuck++;
        ctx.logger.error({ ...log, reason: err.message }, 'payment outcome needs an operator');
        continue;
      }
      ctx.logger.error({ ...log, err: err instanceof Error ? err.message : String(err) }, 'reconciling a payment failed; retried next pass');
    }
  }
  return result;
}
