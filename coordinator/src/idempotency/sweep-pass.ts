import type { SweepPass } from '../sweeper/sweep-pass.ts';
import { deleteExpiredIdempotencyKeys } from './store.ts';

/**
 * The sweeper's pass for the idempotency table: deletes answers past retention and keys left in
 * progress by a crash past their lock bound, at most `batch` rows a sweep.
 */
export function idempotencyPass(policy: { batch: number }): SweepPass {
  return {
    name: 'idempotency',
    run: async (ctx, now) => ({ deleted: await deleteExpiredIdempotencyKeys(ctx.db, now, { limit: policy.batch * 10 }) }),
  };
}
