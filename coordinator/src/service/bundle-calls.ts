import { BUNDLE_JOB_TYPES, type BundleClip, type BundleJobType, type CreateBundleRequest, type CreateBundleResponse } from '@cutroom/shared/bundles';
import type { Ctx } from '../context.ts';
import { createBundle } from '../composites/bundles/create-bundle.ts';
import { compositeEntryOf } from '../job-types/registry.ts';
import { missingSession } from '../jobs/create-job.ts';
import { AppError } from '../lib/app-error.ts';
import { payIfDue } from '../jobs/pay-job.ts';
import { jobForGatedCall, sessionOf } from './caller.ts';
import { paymentInputOf, type Credentials } from './credentials.ts';
import type { Served } from './job-calls.ts';

/** Where a bundle type that a transport does not offer is offered instead. */
const ELSEWHERE: Record<BundleJobType, string> = {
  clips_vertical: 'clips_vertical is created through the derivatives call of a find_clips job',
  clips_horizontal:
    'clips_horizontal (16:9 clips in the source framing) is offered through the MCP tool, not over REST; over REST cut 16:9 clips with extract_clip',
};

/** Where a bundle is bought: what each surface sells, and whether it takes payment only by hosted card checkout. */
export type BundleSurface = 'rest' | 'mcp';
const SURFACES: Readonly<Record<BundleSurface, { offered: readonly BundleJobType[]; checkoutOnly: boolean }>> = {
  // The spec's derivatives call: clips_vertical, paid by its hosted checkout.
  rest: { offered: ['clips_vertical'], checkoutOnly: true },
  // Both types, on both rails (MPP credentials through payBundleCall), so a chain-only server sells them too.
  mcp: { offered: BUNDLE_JOB_TYPES, checkoutOnly: false },
};

/**
 * Create a clip bundle from the caller's find_clips job (composites/bundles/create-bundle.ts). Only the session
 * that owns the parent may: a bearer token is required, and no payment credential is taken here
 * (a bundle is paid by its hosted card checkout or, over MCP, by payBundleCall; created paid when
 * billing is off). What is sold depends on the surface asking (SURFACES).
 */
export async function createBundleCall(
  ctx: Ctx,
  creds: Credentials,
  parentId: string,
  req: CreateBundleRequest,
  surface: BundleSurface,
): Promise<Served<CreateBundleResponse>> {
  const { offered, checkoutOnly } = SURFACES[surface];
  if (!creds.bearer) throw missingSession();
  const session = await sessionOf(ctx, creds);
  const type = BUNDLE_JOB_TYPES.find((t) => t === req.job_type);
  if (!type) {
    throw new AppError(
      'invalid_request',
      `job_type ${req.job_type} is not a clip bundle: this call creates ${offered.join(' or ')} (1-5 clips from one find_clips job); create single cuts (extract_clip, extract_vertical_clip) as jobs naming source_job_id`,
    );
  }
  if (!offered.includes(type)) throw new AppError('invalid_request', ELSEWHERE[type]);
  return { value: await createBundle(ctx, session.id, parentId, { job_type: type, clips: req.clips }, { checkoutOnly }), receipt: {} };
}

/**
 * Pays for a bundle with a payment credential (MCP offers both rails for bundles: N × the per-clip
 * price in USDC or USD), starting its clips in the transaction that books the payment
 * (composites/bundles/bundle-start.ts). Unpaid and no credential: the gate's 402. Billing off or already
 * paid (its checkout completed): nothing to pay, the clips are running.
 */
export async function payBundleCall(ctx: Ctx, creds: Credentials, bundleId: string): Promise<Served<{ job_id: string; status: 'processing' }>> {
  const job = await jobForGatedCall(ctx, creds, bundleId);
  if (compositeEntryOf(job.jobType)?.kind !== 'bundle') throw new AppError('wrong_endpoint', `job ${bundleId} is not a clip bundle (job_type ${job.jobType})`);
  if (job.status === 'deleted') throw new AppError('conflict', `bundle ${bundleId} has expired or was deleted; create a new one`);
  const paid = await payIfDue(ctx, job, paymentInputOf(ctx, creds));
  return { value: { job_id: bundleId, status: 'processing' }, receipt: paid.receipt };
}

/** clips_from_job's request: candidates chosen from a find_clips job, in one orientation. */
export interface ClipsFromJobRequest {
  candidate_ids: readonly string[];
  orientation?: 'vertical' | 'horizontal' | undefined;
  profile?: BundleClip['profile'] | undefined;
  subject?: BundleClip['subject'] | undefined;
}

/**
 * The bundle a clips_from_job request is: one clip per chosen candidate, vertical (with its
 * profile and subject) or horizontal (the source framing, so neither applies: 400 when given).
 */
export function bundleOfCandidates(req: ClipsFromJobRequest): CreateBundleRequest & { job_type: BundleJobType } {
  const horizontal = req.orientation === 'horizontal';
  if (horizontal && (req.profile !== undefined || req.subject !== undefined))
    throw new AppError('invalid_request', 'profile and subject apply to vertical clips; horizontal clips keep the source framing');
  const clips: BundleClip[] = req.candidate_ids.map((candidate_id) => ({
    candidate_id,
    ...(req.profile !== undefined && { profile: req.profile }),
    ...(req.subject !== undefined && { subject: req.subject }),
  }));
  return { job_type: horizontal ? 'clips_horizontal' : 'clips_vertical', clips };
}
