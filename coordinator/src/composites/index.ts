import type { JobType } from '@cutroom/shared/job-types';
import type { CompositeDefinition } from '../job-types/entry.ts';
import { bundleComposite } from './bundles/bundle-composite.ts';
import { productComposite } from './products/product-composite.ts';

/** Every composite job type: the `composite` entries of the job-type registry (job-types/registry.ts). */
export const COMPOSITE_DEFINITIONS: Readonly<Partial<Record<JobType, CompositeDefinition>>> = {
  clips_vertical: bundleComposite('clips_vertical'),
  clips_horizontal: bundleComposite('clips_horizontal'),
  clips_from_video: productComposite('clips_from_video'),
  clips_youtube: productComposite('clips_youtube'),
};

export const compositeOf = (type: string): CompositeDefinition | null => COMPOSITE_DEFINITIONS[type as JobType] ?? null;
