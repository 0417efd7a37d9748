import type { CoordinatorConfig } from '../config.ts';
import type { Ctx } from '../context.ts';
import { processRefunds } from '../payments/refunder.ts';
import { leasePass } from './lease-pass.ts';
import { openJobPass } from './open-job-pass.ts';
import { purgePass } from './purge-pass.ts';
import { retentionPass } from './retention-pass.ts';
import { wakeupPass } from './wakeup-pass.ts';
import { idempotencyPass } from '../idempotency/sweep-pass.ts';
import { markJobPaid } from '../jobs/mark-paid.ts';
import { reconcilePayments } from '../payments/reconcile.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

export type { SweepPass, SweepPolicy };

/**
 * Defaults: a wake-up that was lost (stream lost, or consumed by an agent whose claim was
 * refused) is replaced after 5 minutes (or 4 leases, if longer). A job waiting in a backlog may
 * get a redundant one then, which costs one refused claim.
 */
export function sweepPolicy(config: Pick<CoordinatorConfig, 'LEASE_MS'>, overrides: Partial<SweepPolicy> = {}): SweepPolicy {
  return { republishAfterMs: Math.max(5 * 60_000, 4 * config.LEASE_MS), purgeRetryMs: 10 * 60_000, batch: 100, ...overrides };
}

/** Payments hand their periodic work in as passes too (refunds now; reconciliation next). */
export const refundPass: SweepPass = { name: 'refunds', run: (ctx) => processRefunds(ctx) };

/**
 * The passes, in order:
 *  1. leases: attempts whose lease ran out end as `lease_expired`; the job is requeued with a new
 *     wake-up, or failed (refunded) after MAX_ATTEMPTS;
 *  2. wakeups: a queued job nobody claimed for `republishAfterMs` gets a new wake-up;
 *  3. open-jobs: `pending`/`uploading` jobs past their expiry become `deleted` (a paid one refunded,
 *     a held one's release made due, for the durable-step worker to run);
 *  4. retention: finished jobs past expires_at become `deleted`, output rows dropped;
 *  5. purge: `deleted` jobs whose objects are due lose everything under `jobs/<id>/`;
 *  6. refunds (billing on): queued refunds are paid out.
 * Add a pass here (or hand startSweeper a list) to run more housekeeping on the same cadence.
 */
/** Payments whose outcome was unknown (or a crash left settling) end settled (job paid), failed or stuck. */
export const paymentReconcilePass: SweepPass = { name: 'payment-reconcile', run: (ctx) => reconcilePayments(ctx, markJobPaid) };

export function defaultSweepPasses(ctx: Ctx, overrides: Partial<SweepPolicy> = {}): SweepPass[] {
  const policy = sweepPolicy(ctx.config, overrides);
  return [
    leasePass(policy),
    wakeupPass(policy),
    openJobPass(policy),
    retentionPass(policy),
    purgePass(policy),
    idempotencyPass(policy),
    ...(ctx.billing.enabled ? [paymentReconcilePass, refundPass] : []),
  ];
}

export type SweepResult = Record<string, Record<string, number>>;

/** Runs each pass once, in order. A pass that throws is logged and counted; the others still run. */
export async function sweepOnce(ctx: Ctx, passes: readonly SweepPass[] = defaultSweepPasses(ctx)): Promise<SweepResult> {
  const result: SweepResult = {};
  for (const pass of passes) {
    try {
      result[pass.name] = countsOf(await pass.run(ctx, ctx.clock.now()));
    } catch (err) {
      ctx.logger.error({ err, pass: pass.name }, 'sweep pass failed');
      result[pass.name] = { errors: 1 };
    }
  }
  return result;
}

function countsOf(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, number] => typeof e[1] === 'number'));
}

export function startSweeper(ctx: Ctx, passes: readonly SweepPass[] = defaultSweepPasses(ctx)) {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    // A sweep slower than the interval is not queued up behind: the next tick after it runs.
    running ??= sweepOnce(ctx, passes).finally(() => {
      running = null;
    });
  }, ctx.config.SWEEP_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
