import { randomUUID } from 'node:crypto';
import type { BundleChildSummary, BundleClip } from '@cutroom/shared/bundles';
import type { ClipCandidate } from '@cutroom/shared/clips/clips-v1';
import { DEFAULT_VERTICAL_PROFILE, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import { priceOf, type JobType } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import { PRODUCT_CLIPS } from '@cutroom/shared/products';
import type { ParentView, PreparedJob } from '../../job-types/definition.ts';
import { definitionOf } from '../../job-types/agent-types.ts';
import { AppError } from '../../lib/app-error.ts';
import { CHILD_TYPE_OF, childRequest } from '../bundles/bundle-children.ts';
import type { ProductParams } from './product-params.ts';

export interface PlannedClip {
  summary: BundleChildSummary;
  type: JobType;
  prepared: PreparedJob;
}

/** Best first: the score a candidate was ranked by (the match score in query mode), then its rank. */
const scoreOf = (c: ClipCandidate): number => c.match?.score ?? c.score;

/** The longest window a clip may have: the vertical profile's cap (clips_from_video), else the candidate's own. */
function trimmed(c: ClipCandidate, cap: number): number {
  let end = Math.min(c.end, Math.round((c.start + cap) * 1000) / 1000);
  // Rounded to the millisecond, a trimmed window could still exceed the cap by a float's width.
  while (end - c.start > cap) end = Math.round((end - 0.001) * 1000) / 1000;
  return end;
}

/**
 * The product's clips, nothing written: the best `max_clips` candidates of the find_clips child
 * by score, each as its clip child prepared by that child type's own prepare() against the child
 * (the same preparation as a clip bundle's, create-bundle.ts): 9:16 extract_vertical_clip with the
 * request's profile and subject, trimmed to the profile's duration cap (clips_from_video), or a
 * one-segment 16:9 extract_clip in the source's framing (clips_youtube). A candidate the child
 * type refuses is skipped (and named in `skipped`), the next best taking its place.
 */
export function planClips(p: ProductParams, parent: ParentView, candidates: readonly ClipCandidate[]): { clips: PlannedClip[]; skipped: string[] } {
  const bundleType = PRODUCT_CLIPS[p.product];
  const type = CHILD_TYPE_OF[bundleType];
  const def = definitionOf(type);
  const unit = priceOf(bundleType, null)!;
  const vertical = p.product === 'clips_from_video';
  const framing: BundleClip =
    p.product === 'clips_from_video'
      ? {
          ...(p.request.profile && { profile: p.request.profile }),
          ...(p.request.aspect && { aspect: p.request.aspect }),
          ...(p.request.subject && { subject: p.request.subject }),
        }
      : {};
  const cap = p.product === 'clips_from_video' ? VERTICAL_PROFILES[p.request.profile ?? DEFAULT_VERTICAL_PROFILE].maxSeconds : Number.POSITIVE_INFINITY;
  const stem = parent.job.originalFilename.replace(/\.[^.]+$/, '') || 'source';
  const ranked = [...candidates].sort((a, b) => scoreOf(b) - scoreOf(a) || a.rank - b.rank);
  const clips: PlannedClip[] = [];
  const skipped: string[] = [];
  for (const c of ranked) {
    if (clips.length >= p.max_clips) break;
    const n = clips.length + 1;
    const end = trimmed(c, cap);
    const title = c.title.slice(0, LIMITS.titleMaxChars);
    let prepared: PreparedJob;
    try {
      prepared = def.prepare(childRequest(bundleType, framing, n, parent, { start: c.start, end, title, candidate: c.id }), parent);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      skipped.push(`${c.id}: ${err.message}`);
      continue;
    }
    clips.push({
      summary: { index: n, job_id: randomUUID(), candidate_id: c.id, start: c.start, end, title },
      type,
      prepared: { ...prepared, price: unit, originalFilename: `${stem}.clip${n}.${vertical ? 'vertical' : 'clip'}.mp4` },
    });
  }
  return { clips, skipped };
}
