import { z } from 'zod';
import { BundleChildSummary, SubjectBox } from './api.ts';
import { ClipAspect, VerticalProfile } from './clips/profiles.ts';
import { SubjectStrategy } from './clips/subjects-v1.ts';
import { JobType, PaymentStatus } from './job-types.ts';
import { LIMITS } from './limits.ts';

/** A bundle's children as the Job view shows them live in api.ts (the Job resource carries them). */
export { BundleChildSummary, BundleChildView } from './api.ts';

/**
 * Clip bundles: one purchase of up to five clips cut from one find_clips job, one bundle job id,
 * one child job per clip (README "Clip bundles"). `clips_vertical` children are
 * extract_vertical_clip jobs (9:16, a vertical profile, reframing per clip); `clips_horizontal`
 * children are single-segment extract_clip jobs (the source's own 16:9 framing).
 */
export const BUNDLE_JOB_TYPES = ['clips_vertical', 'clips_horizontal'] as const satisfies readonly JobType[];
export type BundleJobType = (typeof BUNDLE_JOB_TYPES)[number];

const seconds = z.number().nonnegative().finite();

/**
 * One clip of a bundle: a candidate of the parent's clips document (`candidate_id`, e.g. `c1`),
 * or a window of the parent (`start` and `end`, seconds), never both. The reframing fields are
 * extract_vertical_clip's and apply to clips_vertical only.
 */
export const BundleClip = z.strictObject({
  candidate_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('A candidate id of the parent find_clips job (`c1`, `c2`, … in its `clips` output); the clip is that candidate’s [start, end]'),
  start: seconds.optional().describe('Without candidate_id: first second of the clip, in the parent'),
  end: seconds.optional().describe('Without candidate_id: end of the clip (exclusive), in the parent; end - start is capped by the profile'),
  title: z.string().max(LIMITS.titleMaxChars).optional().describe('The clip’s title (default: the candidate’s title); names the child job’s file'),
  profile: VerticalProfile.optional().describe('clips_vertical: this clip’s encoding profile (default vidA-primary); caps its length (240/240/180/60 s)'),
  aspect: ClipAspect.optional().describe('clips_vertical: this clip’s shape, as extract_vertical_clip aspect (default 9:16; 4:5 and 1:1 for feed posts)'),
  subject: SubjectStrategy.optional().describe('clips_vertical: reframing strategy, as extract_vertical_clip (default center)'),
  subject_id: z.string().max(LIMITS.subjectIdMaxChars).optional().describe('clips_vertical: as extract_vertical_clip subject_id'),
  subject_box: SubjectBox.optional().describe('clips_vertical, subject=manual: as extract_vertical_clip subject_box'),
  t_ref: seconds.optional().describe('clips_vertical, subject=manual: as extract_vertical_clip t_ref'),
  subject_x_offset: seconds.optional().describe('clips_vertical: as extract_vertical_clip subject_x_offset'),
});
export type BundleClip = z.infer<typeof BundleClip>;

/** Body of POST /jobs/{parent_job_id}/derivatives. */
export const CreateBundleRequest = z.strictObject({
  job_type: JobType.describe('clips_vertical (the REST route takes only this; clips_horizontal is offered through MCP)'),
  clips: z.array(BundleClip).min(1).max(LIMITS.clipsPerBatchMax).describe('1-5 clips; each becomes one child job and one delivered file'),
});
export type CreateBundleRequest = z.infer<typeof CreateBundleRequest>;

export const CreateBundleResponse = z.object({
  job_id: z.uuid(),
  job_type: JobType,
  payment_status: PaymentStatus,
  /** The whole bundle: quantity × unit_price_cents. */
  price_cents: z.number().int(),
  unit_price_cents: z.number().int(),
  quantity: z.number().int().positive(),
  source_job_id: z.uuid(),
  /** Hosted card checkout of the bundle (one line item, quantity N); absent when billing is off (created paid). */
  checkout_url: z.url().optional(),
  card_checkout_session_id: z.string().optional(),
  children: z.array(BundleChildSummary),
});
export type CreateBundleResponse = z.infer<typeof CreateBundleResponse>;
