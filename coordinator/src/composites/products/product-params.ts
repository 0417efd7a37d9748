import { z } from 'zod';
import { BundleChildSummary } from '@cutroom/shared/bundles';
import { ClipsFromVideoRequest, ClipsYoutubeRequest } from '@cutroom/shared/products';
import type { JobRow } from '../../db/schema.ts';
import { sourceKeyOf } from '../../jobs/job-access.ts';

/** The settlement, decided in the transaction that ended the last step (what to capture of the hold), executed after commit. */
export const Settle = z.object({
  /** What to capture of the hold: the find_clips price plus one clip price per clip delivered; 0 = release it all. */
  capture_cents: z.number().int().nonnegative(),
  /** `completed`: the product ends completed once captured; `ended`: it already ended (failed or expired). */
  outcome: z.enum(['completed', 'ended']),
  delivered: z.number().int().nonnegative(),
  /** error_message of the completed product (the failed clips), or null. */
  message: z.string().nullable(),
});
export type Settle = z.infer<typeof Settle>;

/** What the row keeps besides the request: each step as it was decided. */
const Steps = z.object({
  /** The find_clips child: its id (chosen at creation, so a repeated complete-upload finds the same source key) and prepared row. */
  find_clips: z.object({ job_id: z.uuid(), params: z.record(z.string(), z.unknown()), price_cents: z.number().int().nonnegative() }),
  max_clips: z.number().int().positive(),
  /** Set by the cut step (the same keys as a clip bundle): one child per clip, in order of the candidates' scores. */
  quantity: z.number().int().nonnegative().optional(),
  clips: z.array(BundleChildSummary).optional(),
  /** Why the cut step cut fewer clips than max_clips, when it did (no candidates, a document that is gone). */
  cut_note: z.string().nullable().optional(),
  settle: Settle.optional(),
  /** What the card processor took and gave back, once the settlement ran (nothing for billing off). */
  settled: z.object({ captured_cents: z.number().int().nonnegative(), released_cents: z.number().int().nonnegative() }).optional(),
});

/**
 * What an agent product's row keeps in `params`: what was asked for, and each step as it was
 * decided. Every step reads it back from the row (never from memory), so a coordinator that
 * stopped between two steps carries on from what is written here; it is parsed at that boundary,
 * so a row that does not hold a product's state fails loudly instead of being misread.
 */
export const ProductParams = z.discriminatedUnion('product', [
  Steps.extend({ product: z.literal('clips_from_video'), request: ClipsFromVideoRequest }),
  Steps.extend({ product: z.literal('clips_youtube'), request: ClipsYoutubeRequest }),
]);
export type ProductParams = z.infer<typeof ProductParams>;

export const productParams = (job: Pick<JobRow, 'params'>): ProductParams => ProductParams.parse(job.params);

/** Where a product's upload is committed: the find_clips child's own source key (an in-store move at complete-upload). */
export const productSourceKey = (job: Pick<JobRow, 'params'>): string => sourceKeyOf(productParams(job).find_clips.job_id);
