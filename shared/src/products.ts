import { z } from 'zod';
import { CreateJobRequest } from './api.ts';
import { ClipAspect, VerticalProfile } from './clips/profiles.ts';
import { SubjectStrategy } from './clips/subjects-v1.ts';
import type { BundleJobType } from './bundles.ts';
import type { JobType } from './job-types.ts';
import { LIMITS } from './limits.ts';

/**
 * The agent products (spec: "Additional products listed in the agent card"): one purchase that
 * uploads a recording, finds its best moments (find_clips) AND cuts up to five clips of them.
 * `clips_from_video` cuts 9:16 vertical clips (extract_vertical_clip children), `clips_youtube`
 * 16:9 clips in the source's own framing (one-segment extract_clip children). Card rail only: a
 * hold authorizes the worst case (PRICES.clips_bundle_hold, USD 4.50) and the service captures
 * what was delivered (the find_clips price plus one clip price per clip delivered).
 */
export const AGENT_PRODUCTS = ['clips_from_video', 'clips_youtube'] as const satisfies readonly JobType[];
export type AgentProduct = (typeof AGENT_PRODUCTS)[number];

/**
 * The clip bundle each product's clips are cut like: its children are that bundle's children
 * (clips_vertical: extract_vertical_clip, clips_horizontal: one-segment extract_clip), prepared
 * the same way (coordinator/src/composites/bundles/create-bundle.ts).
 */
export const PRODUCT_CLIPS: Readonly<Record<AgentProduct, BundleJobType>> = {
  clips_from_video: 'clips_vertical',
  clips_youtube: 'clips_horizontal',
};

const upload = CreateJobRequest.pick({ filename: true, content_type: true, query: true, language: true });

const maxClips = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.clipsPerBatchMax)
  .optional()
  .describe(
    `How many clips to cut at most (1-${LIMITS.clipsPerBatchMax}, default ${LIMITS.clipsPerBatchMax}): the best candidates by score, fewer when the recording has fewer`,
  );

/** clips_from_video: upload → find_clips → up to 5 vertical clips of the best candidates. */
export const ClipsFromVideoRequest = upload
  .extend({
    filename: upload.shape.filename.unwrap().describe('Name of the video file you will upload (e.g. talk.mp4)'),
    content_type: upload.shape.content_type
      .unwrap()
      .describe('Media type of the video (video/mp4, video/quicktime, video/webm, video/x-matroska, video/x-msvideo)'),
    max_clips: maxClips,
    profile: VerticalProfile.optional().describe(
      'Encoding profile of every clip (default vidA-primary, 1080x1920). vidB-stories (60 s at most) finds short candidates (15-60 s) that fit it whole; with the others candidates longer than the cap (240/240/180 s) are trimmed to it',
    ),
    aspect: ClipAspect.optional().describe('Shape of every clip: 9:16 (default), 4:5 or 1:1 for feed posts (as extract_vertical_clip aspect)'),
    subject: SubjectStrategy.exclude(['manual', 'subject_id'])
      .optional()
      .describe(
        'Reframing of every clip: center (default), auto (one steady crop per shot on the dominant face) or follow (the crop tracks the dominant face)',
      ),
  })
  .strict();
export type ClipsFromVideoRequest = z.infer<typeof ClipsFromVideoRequest>;

/** clips_youtube: the same with 16:9 clips in the source's own framing. */
export const ClipsYoutubeRequest = upload
  .extend({
    filename: ClipsFromVideoRequest.shape.filename,
    content_type: ClipsFromVideoRequest.shape.content_type,
    max_clips: maxClips,
  })
  .strict();
export type ClipsYoutubeRequest = z.infer<typeof ClipsYoutubeRequest>;

/** What a product job stores in params: what it was asked for. Its steps live in coordinator/src/composites/products/. */
export type ProductRequest = { product: 'clips_from_video'; request: ClipsFromVideoRequest } | { product: 'clips_youtube'; request: ClipsYoutubeRequest };
