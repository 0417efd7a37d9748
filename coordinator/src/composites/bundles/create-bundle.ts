import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { BundleChildSummary, BundleClip, BundleJobType, CreateBundleResponse } from '@cutroom/shared/bundles';
import type { ClipCandidate } from '@cutroom/shared/clips/clips-v1';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import type { Ctx } from '../../context.ts';
import { jobOutputs } from '../../db/schema.ts';
import type { ParentView, PreparedJob } from '../../job-types/definition.ts';
import { definitionOf } from '../../job-types/agent-types.ts';
import { AppError } from '../../lib/app-error.ts';
import { ensureCheckout } from '../../payments/job-payments.ts';
import { insertJob, newJobRow } from '../../jobs/job-rows.ts';
import { reloadJob } from '../../jobs/job-access.ts';
import { startBundle } from './bundle-start.ts';
import { CHILD_TYPE_OF, childRequest, storedCandidates, targetHintFor, windowOf } from './bundle-children.ts';
import type { BundleParams } from './bundle-params.ts';
import { parentMediaOf, usableParent } from '../../jobs/parent-source.ts';

const bad = (message: string) => new AppError('invalid_request', message);

/** The checked find_clips parent, as the children's prepare() reads it. */
async function bundleParent(ctx: Ctx, type: BundleJobType, sessionId: string, parentId: string): Promise<ParentView> {
  const job = await usableParent(ctx, type, JOB_TYPES[type], sessionId, parentId);
  const roles = await ctx.db.select({ role: jobOutputs.role }).from(jobOutputs).where(eq(jobOutputs.jobId, job.id));
  return { job, media: parentMediaOf(job), roles: roles.map((r) => r.role) };
}

/**
 * The parent's candidates, read from its stored `clips` output (clips v1), only when a clip names
 * one: a clip given by start/end needs no document.
 */
async function candidatesOf(ctx: Ctx, parent: ParentView): Promise<ClipCandidate[]> {
  const candidates = await storedCandidates(ctx, parent.job.id);
  if (candidates) return candidates;
  throw bad(`source_job_id ${parent.job.id} no longer has its clips output (it was deleted), so candidate ids cannot be resolved: give start and end instead`);
}

/**
 * Prepares every clip as its child job, naming the clip in any refusal (and, for a vertical clip
 * whose candidate is longer than its profile takes, the find_clips target that fits it). Nothing is written.
 */
async function prepareChildren(ctx: Ctx, type: BundleJobType, clips: BundleClip[], parent: ParentView) {
  const unit = priceOf(type, null)!;
  const childDef = definitionOf(CHILD_TYPE_OF[type]);
  const candidates = clips.some((c) => c.candidate_id !== undefined) ? await candidatesOf(ctx, parent) : [];
  const stem = parent.job.originalFilename.replace(/\.[^.]+$/, '') || 'source';
  return clips.map((clip, i) => {
    const n = i + 1;
    const w = windowOf(clip, n, candidates);
    let prepared: PreparedJob;
    try {
      prepared = childDef.prepare(childRequest(type, clip, n, parent, w), parent);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const prefix = err.message.startsWith(`clip ${n}:`) ? '' : `clip ${n}: `;
      const hint = type === 'clips_vertical' ? targetHintFor(clip, w) : '';
      if (!prefix && !hint) throw err;
      throw new AppError(err.code, `${prefix}${err.message}${hint}`, { cause: err });
    }
    const summary: BundleChildSummary = { index: n, job_id: randomUUID(), candidate_id: w.candidate, start: w.start!, end: w.end!, title: w.title ?? null };
    return { summary, prepared: { ...prepared, price: unit, originalFilename: `${stem}.clip${n}.${type === 'clips_vertical' ? 'vertical' : 'clip'}.mp4` } };
  });
}

/**
 * Creates a clip bundle from the caller's find_clips job: one bundle job (the purchase: N × the
 * item price) and N child jobs (extract_vertical_clip for clips_vertical, one-segment extract_clip
 * for clips_horizontal) with parent_job_id set (the API's bundle_job_id) and payment_status `paid_by_parent`. Everything is
 * validated before anything is written or offered for payment: the parent (404/403/400/409/410),
 * each clip's candidate or window, the profile's cap and reframing fields (the child type's own
 * prepare). Billing on: paid by one hosted card checkout (quantity N); children stay pending and
 * do nothing until it completes (mark-paid.ts starts them). Billing off: created paid and started.
 */
export async function createBundle(
  ctx: Ctx,
  sessionId: string,
  parentId: string,
  req: { job_type: BundleJobType; clips: BundleClip[] },
  /** REST sells bundles by hosted card checkout only; MCP also takes MPP credentials on both rails (service/bundle-calls.ts payBundleCall). */
  opts: { checkoutOnly: boolean } = { checkoutOnly: true },
): Promise<CreateBundleResponse> {
  const type = req.job_type;
  if (req.clips.length < 1 || req.clips.length > LIMITS.clipsPerBatchMax) {
    throw bad(`clips takes 1-${LIMITS.clipsPerBatchMax} entries (got ${req.clips.length}): one bundle is at most ${LIMITS.clipsPerBatchMax} clips`);
  }
  if (opts.checkoutOnly && ctx.billing.enabled && !ctx.billing.card) {
    throw new AppError('invalid_request', 'clip bundles are paid by hosted card checkout, which is not configured on this server');
  }
  const parent = await bundleParent(ctx, type, sessionId, parentId);
  const children = await prepareChildren(ctx, type, req.clips, parent);
  const quantity = children.length;
  const unit = priceOf(type, null)!;
  const total = priceOf(type, null, quantity)!;
  const stem = parent.job.originalFilename.replace(/\.[^.]+$/, '') || 'source';
  const params: BundleParams = { quantity, clips: children.map((c) => c.summary) };
  const bundle: PreparedJob = { originalFilename: `${stem}.${type}`, contentType: 'video/mp4', mediaKind: null, price: total, params: { ...params } };
  const id = randomUUID();
  const now = ctx.clock.now();
  const billingOff = !ctx.billing.enabled;
  await ctx.db.transaction(async (tx) => {
    await insertJob(tx, { ...newJobRow(id, type, bundle, now), sessionId, sourceJobId: parent.job.id }, now);
    for (const c of children) {
      await insertJob(
        tx,
        {
          ...newJobRow(c.summary.job_id, CHILD_TYPE_OF[type], c.prepared, now),
          sessionId,
          sourceJobId: parent.job.id,
          parentJobId: id,
          paymentStatus: 'paid_by_parent',
        },
        now,
      );
    }
    // Billing off: prepaid (amount 0), so the children start at once.
    if (billingOff) await startBundle(tx, id, now, 'prepaid (billing disabled)', { paymentStatus: 'paid', amountPaidCents: 0 });
  });
  if (billingOff) ctx.notifyOutbox();
  const checkout = billingOff
    ? null
    : await ensureCheckout(ctx, await reloadJob(ctx.db, id)).catch((err: unknown) => {
        // The bundle stays pending; POST /jobs/{id}/checkout creates the checkout when the processor is back.
        ctx.logger.warn({ job_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not create hosted checkout');
        return null;
      });
  return {
    job_id: id,
    job_type: type,
    payment_status: billingOff ? 'paid' : 'pending',
    price_cents: total.cardCents,
    unit_price_cents: unit.cardCents,
    quantity,
    source_job_id: parent.job.id,
    ...(checkout ?? {}),
    children: params.clips,
  };
}
