import { and, eq, isNotNull } from 'drizzle-orm';
import { JOB_TYPES } from '@cutroom/shared/job-types';
import type { Ctx } from '../../context.ts';
import type { CompositeStep } from '../../job-types/entry.ts';
import type { Tx } from '../../db/database.ts';
import { jobOutputs, jobs, ledgerEntries, type JobRow } from '../../db/schema.ts';
import { addMs } from '../../lib/clock.ts';
import { settleHold } from '../../payments/holds.ts';
import { storedCandidates } from '../bundles/bundle-children.ts';
import { insertJob, newJobRow } from '../../jobs/job-rows.ts';
import { queueAgentJob } from '../../job-types/start-agent-job.ts';
import { parentMediaOf } from '../../jobs/parent-source.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { planClips } from './product-clips.ts';
import { productParams, productSourceKey, type ProductParams, type Settle } from './product-params.ts';
import { settlementOf } from './product-status.ts';

/** The product row, locked, in a transaction of its own: each step ends by writing what it did under this lock. */
const locked = async (tx: Tx, id: string) => (await tx.select().from(jobs).where(eq(jobs.id, id)).limit(1).for('update'))[0];

/**
 * The cut step (find_clips completed): reads the child's clips document (storage: after commit),
 * plans the best clips (product-clips.ts), then under the product's lock, unless another runner
 * cut them first, creates and starts them. No clip to cut (no candidates, or the document is
 * gone) decides the settlement at once: a full release (product-status.ts settlementOf).
 */
async function cutStep(ctx: Ctx, product: JobRow, owner: string): Promise<CompositeStep> {
  const p = productParams(product);
  const [find] = await ctx.db.select().from(jobs).where(eq(jobs.id, p.find_clips.job_id)).limit(1);
  if (!find) throw new Error(`product ${product.id} has no find_clips child ${p.find_clips.job_id}`);
  const roles = await ctx.db.select({ role: jobOutputs.role }).from(jobOutputs).where(eq(jobOutputs.jobId, find.id));
  const candidates = find.status === 'completed' ? await storedCandidates(ctx, find.id) : null;
  const planned = planClips(p, { job: find, media: parentMediaOf(find), roles: roles.map((r) => r.role) }, candidates ?? []);
  if (planned.skipped.length) ctx.logger.warn({ job_id: product.id, skipped: planned.skipped }, 'product: candidates its clips could not be cut from');
  const note = candidates === null ? 'the clips document of the find_clips step is gone' : planned.clips.length ? null : 'the recording has no clip candidates';
  const now = ctx.clock.now();
  const done = await ctx.db.transaction(async (tx) => {
    const row = await locked(tx, product.id);
    if (row?.stepLeaseOwner !== owner || row.status !== 'analyzing' || productParams(row).clips !== undefined) return false;
    for (const c of planned.clips) {
      const values = newJobRow(c.summary.job_id, c.type, c.prepared, now);
      await insertJob(tx, { ...values, sessionId: row.sessionId, sourceJobId: find.id, parentJobId: row.id, paymentStatus: 'paid_by_parent' }, now);
      await queueAgentJob(tx, { id: c.summary.job_id, jobType: c.type }, { from: 'pending', now, reason: `started: product ${row.id} cut its clips` });
    }
    const next: ProductParams = { ...productParams(row), quantity: planned.clips.length, clips: planned.clips.map((c) => c.summary), cut_note: note };
    // Nothing to cut: nothing will end later, so the settlement is decided now (still due).
    if (!planned.clips.length) next.settle = settlementOf(next, find, []);
    await tx
      .update(jobs)
      .set({
        params: { ...next },
        stepDueAt: next.settle ? now : null,
        progress: { stage: next.settle ? 'settling' : 'clips', fraction: next.settle ? 1 : 0, at: now.toISOString() },
        updatedAt: now,
      })
      .where(eq(jobs.id, row.id));
    return true;
  });
  if (planned.clips.length && done) ctx.notifyOutbox();
  return done ? 'cut' : 'raced';
}

/** The hold that paid the product (its payment_reference), or null: billing off, or created before billing. */
async function holdOf(ctx: Ctx, product: JobRow) {
  if (!product.paymentReference) return null;
  const [row] = await ctx.db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.jobId, product.id),
        eq(ledgerEntries.kind, 'hold'),
        eq(ledgerEntries.state, 'done'),
        eq(ledgerEntries.reference, product.paymentReference),
        isNotNull(ledgerEntries.reference),
      ),
    )
    .limit(1);
  return row ? { jobId: product.id, paymentIntentId: row.reference!, amountCents: Number(row.amount) } : null;
}

/** The card half of the settlement: capture what was decided, release the rest (keyed by the product: repeating it moves nothing more). */
export async function captureDue(ctx: Ctx, product: JobRow, settle: Settle) {
  const hold = await holdOf(ctx, product);
  const result = hold ? await settleHold(ctx, hold, Math.min(settle.capture_cents, hold.amountCents)) : { capturedCents: 0, releasedCents: 0 };
  return { hold, result };
}

/**
 * The settlement step: captures what the settlement decided (payments/holds.ts settleHold: the
 * rest is released; nothing delivered releases it all), then under the product's lock writes the
 * product's end. The capture runs first and is keyed by the product (ledger and processor
 * idempotency keys): a coordinator that stops between the two captures nothing more when the step
 * runs again, and only then ends the product.
 */
async function settleStep(ctx: Ctx, product: JobRow, settle: Settle, owner: string): Promise<CompositeStep> {
  const { hold, result } = await captureDue(ctx, product, settle);
  if (settle.outcome === 'ended') await dropOrphanUpload(ctx, product);
  const now = ctx.clock.now();
  const settled = { captured_cents: result.capturedCents, released_cents: result.releasedCents };
  return ctx.db.transaction(async (tx) => {
    const row = await locked(tx, product.id);
    if (!row?.stepDueAt || row.stepLeaseOwner !== owner) return 'raced' as const;
    const patch = { stepDueAt: null, amountPaidCents: hold ? result.capturedCents : row.amountPaidCents, params: { ...productParams(row), settled } };
    if (row.status === 'analyzing' && settle.outcome === 'completed') {
      const retention = JOB_TYPES[product.jobType as 'clips_from_video'].retentionHours * 3600_000;
      const reason = `${settle.delivered} clip${settle.delivered === 1 ? '' : 's'} delivered; captured ${result.capturedCents} of ${hold?.amountCents ?? 0} cents`;
      const patchEnd = { ...patch, completedAt: now, expiresAt: addMs(now, retention), errorMessage: settle.message, progress: null };
      await transitionJob(tx, { jobId: row.id, from: 'analyzing', to: 'completed', reason, now, patch: patchEnd });
    } else {
      await tx.update(jobs).set(patch).where(eq(jobs.id, row.id));
    }
    return 'settled' as const;
  });
}

/** An upload that a crashed complete-upload moved to the find_clips child's key, which no child row owns. */
async function dropOrphanUpload(ctx: Ctx, product: JobRow): Promise<void> {
  const [child] = await ctx.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(eq(jobs.id, productParams(product).find_clips.job_id))
    .limit(1);
  if (child) return;
  await ctx.blobs
    .delete(productSourceKey(product))
    .catch((err: unknown) => ctx.logger.warn({ err, job_id: product.id }, 'could not delete an orphaned product upload'));
}

/**
 * Runs the step that is due for one product (its runDueStep: composites/steps.ts drives it under
 * `owner`'s lease, and every write here checks the lease is still held), or
 * nothing (null) when none is due (yet): the settlement once decided, else the cut once find_clips
 * ended. A marker with nothing behind it (the product moved on meanwhile) is cleared.
 */
export async function runProductStep(ctx: Ctx, product: JobRow, owner: string): Promise<CompositeStep | null> {
  if (!product.stepDueAt || product.stepDueAt > ctx.clock.now()) return null;
  const p = productParams(product);
  if (p.settle) return settleStep(ctx, product, p.settle, owner);
  if (product.status === 'analyzing' && p.clips === undefined) return cutStep(ctx, product, owner);
  await ctx.db
    .update(jobs)
    .set({ stepDueAt: null })
    .where(and(eq(jobs.id, product.id), eq(jobs.stepDueAt, product.stepDueAt), eq(jobs.stepLeaseOwner, owner)));
  return 'cleared';
}
