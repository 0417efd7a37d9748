import { eq } from 'drizzle-orm';
import type { Tx } from '../db/database.ts';
import { jobs, type JobRow } from '../db/schema.ts';

/** What a composite does when one of its children ends, with its own row locked (composites/). */
export type ChildEndedHook = (tx: Tx, parent: JobRow, child: JobRow, now: Date) => Promise<void>;

const subscribers = new Map<string, ChildEndedHook>();

/**
 * A composite job type subscribes here to its children's ends (job-types/registry.ts does it for
 * every composite entry when it loads). Subscribing a type twice is a programming error.
 */
export function subscribeChildEnded(parentType: string, hook: ChildEndedHook): void {
  if (subscribers.has(parentType)) throw new Error(`${parentType} already subscribes to its children's ends`);
  subscribers.set(parentType, hook);
}

/**
 * The job-ended hook: called by transitionJob (the only writer of jobs.status) in the transaction
 * that moved a job to `completed`, `failed` or `deleted`, so no path can end a child and forget its
 * parent. The parent row is locked first, so two children ending at once are decided one after
 * the other and the last always sees every end. A child whose parent type has no subscriber
 * throws: that is a registry that was never loaded, not something to skip.
 */
export async function jobEnded(tx: Tx, child: JobRow, now: Date): Promise<void> {
  if (!child.parentJobId) return;
  const [parent] = await tx.select().from(jobs).where(eq(jobs.id, child.parentJobId)).limit(1).for('update');
  if (!parent) return;
  const hook = subscribers.get(parent.jobType);
  if (!hook) throw new Error(`job ${child.id} ended, and nothing subscribes to the ends of ${parent.jobType} ${parent.id}'s children`);
  await hook(tx, parent, child, now);
}
