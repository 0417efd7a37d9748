import type { BundleChildSummary } from '@cutroom/shared/bundles';
import type { AgentProduct } from '@cutroom/shared/products';
import type { CompositeDefinition } from '../../job-types/entry.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { AppError } from '../../lib/app-error.ts';
import { productParams, productSourceKey } from './product-params.ts';
import { productChildEnded, productExpired } from './product-status.ts';
import { runProductStep } from './product-steps.ts';
import { startProduct } from './start-product.ts';

/** An agent product's find_clips step as its child 0 (once it exists: complete-upload creates it); its window is the whole upload. */
function productChildren(job: Parameters<CompositeDefinition['childList']>[0]): BundleChildSummary[] {
  const findStep: BundleChildSummary[] =
    job.status === 'pending' || job.status === 'uploading'
      ? []
      : [{ index: 0, job_id: productParams(job).find_clips.job_id, candidate_id: null, start: 0, end: 0, title: null }];
  return [...findStep, ...(productParams(job).clips ?? [])];
}

/**
 * An agent product (clips_from_video, clips_youtube): one purchase paid by a card hold that
 * uploads a recording (create-product.ts), finds its clips (its find_clips child, started at
 * complete-upload: start-product.ts), cuts the best of them (the cut step, after find_clips ended:
 * product-steps.ts), then captures what was delivered and releases the rest (the settlement step).
 */
export function productComposite(type: AgentProduct): CompositeDefinition {
  return {
    type,
    kind: 'product',
    restRoute: null,
    createRefusal: () =>
      new AppError(
        'wrong_endpoint',
        `${type} is an agent product offered through the MCP tool of that name (a card hold, then find_clips and its clips); over REST, run find_clips and cut its candidates with clips_vertical or extract_clip`,
      ),
    // Paid by a hold, it is an upload job: pending → uploading.
    paid: (tx, jobId, now, reason, patch) => transitionJob(tx, { jobId, from: 'pending', to: 'uploading', reason, now, patch }),
    uploadCommitted: startProduct,
    uploadKey: productSourceKey,
    expired: productExpired,
    childEnded: productChildEnded,
    runDueStep: runProductStep,
    childList: productChildren,
  };
}
