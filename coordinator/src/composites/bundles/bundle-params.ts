import { z } from 'zod';
import { BundleChildSummary } from '@cutroom/shared/bundles';
import type { JobRow } from '../../db/schema.ts';

/**
 * What a clip bundle's row stores in params: how many clips it bought, and which child cuts which.
 * Parsed where it is read back, so a row that does not hold a bundle's state fails loudly.
 */
export const BundleParams = z.object({
  quantity: z.number().int().positive(),
  clips: z.array(BundleChildSummary),
});
export type BundleParams = z.infer<typeof BundleParams>;

export const bundleParams = (job: Pick<JobRow, 'params'>): BundleParams => BundleParams.parse(job.params);
