import { asc, lte } from 'drizzle-orm';
import { driveComposite } from '../composites/steps.ts';
import { jobs } from '../db/schema.ts';
import type { SweepPass, SweepPolicy } from './sweep-pass.ts';

/**
 * Composites whose next step is due (jobs.step_due_at, written in the transaction that made it
 * due): an agent product's cut after find_clips, the capture or release of its hold. Each is also
 * run right after that commit (composites/steps.ts nudgeParent); this pass is what finishes them
 * when that did not happen (a coordinator stopped in between, the card processor was down). Every
 * step is idempotent, so running one twice does nothing more. A step that fails is postponed, not
 * dropped.
 */
export function compositesPass(policy: SweepPolicy): SweepPass {
  return {
    name: 'composites',
    async run(ctx, now) {
      const result = { cut: 0, settled: 0, errors: 0 };
      const due = await ctx.db.select({ id: jobs.id }).from(jobs).where(lte(jobs.stepDueAt, now)).orderBy(asc(jobs.stepDueAt)).limit(policy.batch);
      for (const { id } of due) {
        try {
          for (const step of await driveComposite(ctx, id)) if (step === 'cut' || step === 'settled') result[step]++;
        } catch (err) {
          result.errors++;
          ctx.logger.error({ err, job_id: id }, 'composite step failed; retried later');
        }
      }
      return result;
    },
  };
}
