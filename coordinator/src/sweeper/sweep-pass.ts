import type { Ctx } from '../context.ts';

/**
 * One housekeeping step the sweeper runs on every tick, with the injected clock's `now`. It
 * returns counts for logs and tests. A pass handles each row in its own transaction guarded by
 * what it read, so a sweep racing a late heartbeat, a caller or a second coordinator changes
 * nothing twice; a row that fails is logged and left for the next sweep, never stopping the rest.
 */
export interface SweepPass {
  name: string;
  /** Counts of what it did (e.g. `{ requeued: 1 }`) for logs and tests; anything else is ignored. */
  run(ctx: Ctx, now: Date): Promise<unknown>;
}

export interface SweepPolicy {
  /** A queued job (active, no attempt) left alone this long gets a fresh wake-up. */
  republishAfterMs: number;
  /** A purge of a deleted job's objects that failed is tried again this much later. */
  purgeRetryMs: number;
  /** Rows per pass per sweep. */
  batch: number;
}
