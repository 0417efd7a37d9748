import { asc, lte } from 'drizzle-orm';
import { jobs } from '../db/schema.ts';
import { driveProduct } from '../jobs/products/product-steps.ts';
import type { SweepPass, SweepPolicy } from './sweeper.ts';

/**
 * Agent products whose next step is due (jobs.step_due_at, written in the transaction that made
 * it due): the cut after find_clips, the capture or release of the hold. Each is also run right
 * after that commit (product-steps.ts kickProduct); this pass is what finishes them when that did
 * not happen (a coordinator stopped in between, the card processor was down). Every step is
 * idempotent, so running one twice does nothing more. A step that fails is postponed, not dropped.
 */
export function productsPass(policy: SweepPolicy): SweepPass {
  return {
    name: 'products',
    async run(ctx, now) {
      const result = { cut: 0, settled: 0, errors: 0 };
      const due = await ctx.db.select({ id: jobs.id }).from(jobs).where(lte(jobs.stepDueAt, now)).orderBy(asc(jobs.stepDueAt)).limit(policy.batch);
      for (const { id } of due) {
        try {
          for (const step of await driveProduct(ctx, id)) if (step === 'cut' || step === 'settled') result[step]++;
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: id }, 'product step failed; retried later');
        }
      }
      return result;
    },
  };
}
