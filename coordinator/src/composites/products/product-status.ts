import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { jobs, type JobPatch, type JobRow } from '../../db/schema.ts';
import { addMs } from '../../lib/clock.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { productParams, type ProductParams, type Settle } from './product-params.ts';

const ENDED = new Set(['completed', 'failed', 'deleted']);
/** A failed product keeps its row (and the find_clips child its source) a day, like a failed job. */
const FAILED_RETENTION_MS = 24 * 3600_000;

type Child = Pick<JobRow, 'id' | 'status' | 'priceCents' | 'errorCode' | 'errorMessage' | 'completedAt'>;

/** Delivered: it completed. Read from completed_at and error_code, which outlive the child's own retention. */
const delivered = (c: Child): boolean => c.completedAt !== null && c.errorCode === null && c.status !== 'failed';

async function childrenOf(tx: Tx, productId: string): Promise<Child[]> {
  return tx
    .select({
      id: jobs.id,
      status: jobs.status,
      priceCents: jobs.priceCents,
      errorCode: jobs.errorCode,
      errorMessage: jobs.errorMessage,
      completedAt: jobs.completedAt,
    })
    .from(jobs)
    .where(eq(jobs.parentJobId, productId));
}

/** Marks a step due: written with what decided it; the durable-step worker runs it (product-steps.ts), nudged after commit. */
export async function markStepDue(tx: Tx, productId: string, now: Date, patch: JobPatch = {}): Promise<void> {
  await tx
    .update(jobs)
    .set({ ...patch, stepDueAt: now, updatedAt: now })
    .where(eq(jobs.id, productId));
}

/**
 * What the clips delivered are worth: the find_clips price plus each delivered clip's price, or
 * nothing when there was nothing to cut (no candidates: the purchase was clips). `message` is
 * the completed product's error_message: the clips that failed, and that they were not charged.
 */
export function settlementOf(p: ProductParams, find: Child, clips: Child[]): Settle {
  if (!clips.length) {
    const why = p.cut_note ?? 'the recording has no clip candidates';
    return { capture_cents: 0, outcome: 'completed', delivered: 0, message: `no clips were cut: ${why}; nothing was charged (the hold is released)` };
  }
  const done = clips.filter(delivered);
  const index = new Map((p.clips ?? []).map((c) => [c.job_id, c.index]));
  const failed = clips.filter((c) => !delivered(c)).sort((a, b) => (index.get(a.id) ?? 0) - (index.get(b.id) ?? 0));
  const why = failed.map((c) => `clip ${index.get(c.id) ?? '?'}: ${c.errorMessage ?? 'failed'}`).join('; ');
  return {
    capture_cents: find.priceCents + done.reduce((sum, c) => sum + c.priceCents, 0),
    outcome: 'completed',
    delivered: done.length,
    message: failed.length ? `${failed.length} of ${clips.length} clips failed and were not charged (one clip's price each): ${why}` : null,
  };
}

/**
 * An agent product after one of its children ended, in the transaction that ended it (the
 * job-ended hook, jobs/job-ended.ts, with the product row locked, so two children ending at once
 * are decided one after the other). Decides from the rows, never from memory:
 * - find_clips failed: the product fails (`refunded`: nothing is captured) and the release of its
 *   whole hold is due;
 * - find_clips completed: the cut step is due (it reads the clips document: I/O, after commit);
 * - the last clip ended: the settlement (capture of what was delivered) is decided and due;
 * - a clip ended, others still running: the product's progress moves.
 */
export async function productChildEnded(tx: Tx, product: JobRow, _child: JobRow, now: Date): Promise<void> {
  if (product.status !== 'analyzing') return;
  const p = productParams(product);
  const children = await childrenOf(tx, product.id);
  const find = children.find((c) => c.id === p.find_clips.job_id);
  if (!find || !ENDED.has(find.status)) return;
  if (!delivered(find)) {
    const settle: Settle = { capture_cents: 0, outcome: 'ended', delivered: 0, message: null };
    await transitionJob(tx, {
      jobId: product.id,
      from: 'analyzing',
      to: 'failed',
      reason: 'find_clips failed',
      now,
      patch: {
        paymentStatus: 'refunded',
        errorCode: find.errorCode,
        errorMessage: `finding the clips failed, so none were cut and nothing was charged (the hold is released): ${find.errorMessage ?? 'failed'}`,
        completedAt: now,
        expiresAt: addMs(now, FAILED_RETENTION_MS),
        progress: null,
        params: { ...p, settle },
        stepDueAt: now,
      },
    });
    return;
  }
  if (p.clips === undefined) {
    await markStepDue(tx, product.id, now, { progress: { stage: 'find_clips', fraction: 1, at: now.toISOString() } });
    return;
  }
  const clips = children.filter((c) => c.id !== find.id);
  const ended = clips.filter((c) => ENDED.has(c.status)).length;
  if (ended < clips.length) {
    await tx
      .update(jobs)
      .set({ progress: { stage: 'clips', fraction: ended / clips.length, at: now.toISOString() }, updatedAt: now })
      .where(eq(jobs.id, product.id));
    return;
  }
  await markStepDue(tx, product.id, now, {
    params: { ...p, settle: settlementOf(p, find, clips) },
    progress: { stage: 'settling', fraction: 1, at: now.toISOString() },
  });
}

/**
 * An open product expired (open-job-expiry.ts, in its transaction): a paid one releases its whole
 * hold (nothing was processed), and an upload a crashed complete-upload moved to the find_clips
 * child's key (no child row owns it) is deleted by the same step.
 */
export async function productExpired(tx: Tx, product: Pick<JobRow, 'id' | 'params'>, now: Date): Promise<void> {
  const settle: Settle = { capture_cents: 0, outcome: 'ended', delivered: 0, message: null };
  await markStepDue(tx, product.id, now, { params: { ...productParams(product), settle } });
}
