import type { BundleChildSummary } from '@cutroom/shared/bundles';
import type { ProductRequest } from '@cutroom/shared/products';
import type { JobRow } from '../../db/schema.ts';
import { sourceKeyOf } from '../job-access.ts';

/**
 * What an agent product's row keeps in `params`: what was asked for, and each step as it was
 * decided. Every step reads it back from the row (never from memory), so a coordinator that
 * stopped between two steps carries on from what is written here.
 */
export type ProductParams = ProductRequest & {
  /** The find_clips child: its id (chosen at creation, so a repeated complete-upload finds the same source key) and prepared row. */
  find_clips: { job_id: string; params: Record<string, unknown>; price_cents: number };
  max_clips: number;
  /** Set by the cut step (the same keys as a clip bundle): one child per clip, in order of the candidates' scores. */
  quantity?: number;
  clips?: BundleChildSummary[];
  /** Why the cut step cut fewer clips than max_clips, when it did (no candidates, a document that is gone). */
  cut_note?: string | null;
  /** The settlement, decided in the transaction that ended the last step (what to capture of the hold), executed after commit. */
  settle?: Settle;
  /** What the card processor took and gave back, once the settlement ran (nothing for billing off). */
  settled?: { captured_cents: number; released_cents: number };
};

export interface Settle {
  /** What to capture of the hold: the find_clips price plus one clip price per clip delivered; 0 = release it all. */
  capture_cents: number;
  /** `completed`: the product ends completed once captured; `ended`: it already ended (failed or expired). */
  outcome: 'completed' | 'ended';
  delivered: number;
  /** error_message of the completed product (the failed clips), or null. */
  message: string | null;
}

export const productParams = (job: Pick<JobRow, 'params'>): ProductParams => job.params as unknown as ProductParams;

/** Where a product's upload is committed: the find_clips child's own source key (an in-store move at complete-upload). */
export const productSourceKey = (job: Pick<JobRow, 'params'>): string => sourceKeyOf(productParams(job).find_clips.job_id);
