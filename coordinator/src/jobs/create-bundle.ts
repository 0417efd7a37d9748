import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { CreateJobRequest } from '@cutroom/shared/api';
import type { BundleChildSummary, BundleClip, BundleJobType, CreateBundleResponse } from '@cutroom/shared/bundles';
import { ClipsV1, type ClipCandidate } from '@cutroom/shared/clips/clips-v1';
import { JOB_TYPES, priceOf, type JobType } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import type { Ctx } from '../context.ts';
import { jobOutputs } from '../db/schema.ts';
import type { ParentView, PreparedJob } from '../job-types/definition.ts';
import { definitionOf } from '../job-types/registry.ts';
import { AppError } from '../lib/app-error.ts';
import { ensureCheckout } from '../payments/job-payments.ts';
import { BlobNotFoundError } from '../storage/blob-store.ts';
import { insertJob, newJobRow } from './create-job.ts';
import { reloadJob } from './job-access.ts';
import { startBundle } from './mark-paid.ts';
import { parentMediaOf, usableParent } from './parent-source.ts';

/** The job type each bundle's children are: they reuse that type's validation, pipeline and outputs. */
export const CHILD_TYPE_OF: Readonly<Record<BundleJobType, JobType>> = {
  clips_vertical: 'extract_vertical_clip',
  clips_horizontal: 'extract_clip',
};

/** What the bundle row stores in params: how many clips it bought, and which child cuts which. */
export interface BundleParams {
  quantity: number;
  clips: BundleChildSummary[];
}

const VERTICAL_ONLY = ['profile', 'subject', 'subject_id', 'subject_box', 't_ref', 'subject_x_offset'] as const;

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

/** A find_clips job's candidates from its stored clips v1 document; null when it has none any more (deleted). */
export async function storedCandidates(ctx: Ctx, jobId: string): Promise<ClipCandidate[] | null> {
  const [row] = await ctx.db
    .select({ key: jobOutputs.storageKey })
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, jobId), eq(jobOutputs.role, 'clips')))
    .limit(1);
  if (!row?.key) return null;
  let bytes: Buffer;
  try {
    bytes = await ctx.blobs.getBytes(row.key);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  }
  // Checked against the schema when the parent completed; parsed again so a bad object is ours, not a crash.
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    body = null;
  }
  const doc = ClipsV1.safeParse(body);
  if (!doc.success) throw new Error(`clips document of job ${jobId} does not match clips v1`);
  return doc.data.candidates;
}

/** A clip's window: its candidate's, or its own start/end (checked by the child type's prepare). */
function windowOf(clip: BundleClip, n: number, candidates: ClipCandidate[]): { start?: number; end?: number; title?: string; candidate: string | null } {
  if (clip.candidate_id === undefined) {
    if (clip.start === undefined || clip.end === undefined) {
      throw bad(`clip ${n}: name a candidate of the parent (candidate_id, e.g. "c1") or give start and end (seconds of the parent)`);
    }
    return { start: clip.start, end: clip.end, ...(clip.title !== undefined && { title: clip.title }), candidate: null };
  }
  if (clip.start !== undefined || clip.end !== undefined) {
    throw bad(`clip ${n}: send either candidate_id (the candidate's own start and end) or start and end, not both`);
  }
  const c = candidates.find((x) => x.id === clip.candidate_id);
  if (!c) {
    const ids = candidates.map((x) => x.id);
    throw bad(
      `clip ${n}: candidate_id ${clip.candidate_id} is not a candidate of the parent; ${ids.length ? `its candidates are ${ids.join(', ')}` : 'it has no candidates: give start and end'}`,
    );
  }
  return { start: c.start, end: c.end, title: clip.title ?? c.title.slice(0, LIMITS.titleMaxChars), candidate: c.id };
}

/** One clip as the child type's CreateJobRequest, so its own prepare() validates it against the parent (agent products reuse it). */
export function childRequest(type: BundleJobType, clip: BundleClip, n: number, parent: ParentView, w: ReturnType<typeof windowOf>): CreateJobRequest {
  if (type === 'clips_horizontal') {
    const vertical = VERTICAL_ONLY.filter((k) => clip[k] !== undefined);
    if (vertical.length) throw bad(`clip ${n}: ${vertical.join(', ')} apply to clips_vertical; clips_horizontal keeps the source's own framing`);
    if (w.start === undefined || w.end === undefined) throw bad(`clip ${n}: start and end are required`);
    return {
      job_type: 'extract_clip',
      source_job_id: parent.job.id,
      segments: [{ start: w.start, end: w.end, ...(w.title !== undefined && { label: w.title }) }],
      include_transcript: parent.roles.includes('transcript'),
      ...(w.title !== undefined && { title: w.title }),
    };
  }
  const { candidate_id: _c, start: _s, end: _e, title: _t, ...framing } = clip;
  return {
    job_type: 'extract_vertical_clip',
    source_job_id: parent.job.id,
    ...(w.start !== undefined && { start: w.start }),
    ...(w.end !== undefined && { end: w.end }),
    ...(w.title !== undefined && { title: w.title }),
    ...framing,
  };
}

/** Prepares every clip as its child job, naming the clip in any refusal. Nothing is written. */
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
      if (err instanceof AppError && !err.message.startsWith(`clip ${n}:`)) throw new AppError(err.code, `clip ${n}: ${err.message}`, { cause: err });
      throw err;
    }
    const summary: BundleChildSummary = { index: n, job_id: randomUUID(), candidate_id: w.candidate, start: w.start!, end: w.end!, title: w.title ?? null };
    return { summary, prepared: { ...prepared, price: unit, originalFilename: `${stem}.clip${n}.${type === 'clips_vertical' ? 'vertical' : 'clip'}.mp4` } };
  });
}

/**
 * Creates a clip bundle from the caller's find_clips job: one bundle job (the purchase: N × the
 * item price) and N child jobs (extract_vertical_clip for clips_vertical, one-segment extract_clip
 * for clips_horizontal) with bundle_job_id set and payment_status `paid_by_parent`. Everything is
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
          bundleJobId: id,
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
