import type { BundleJobType } from '@cutroom/shared/bundles';
import type { CompositeDefinition } from '../../job-types/entry.ts';
import { AppError } from '../../lib/app-error.ts';
import { bundleParams } from './bundle-params.ts';
import { startBundle } from './bundle-start.ts';
import { bundleChildEnded } from './bundle-status.ts';

/** Which call creates a bundle instead of POST /jobs. */
const CREATED_BY: Readonly<Record<BundleJobType, string>> = {
  clips_vertical:
    'clips_vertical is a clip bundle: create it from a find_clips job with POST /jobs/{parent_job_id}/derivatives (job_type, clips); it is paid by its hosted card checkout and its clips start by themselves',
  clips_horizontal: 'clips_horizontal is a clip bundle offered through the MCP tool; over REST, cut 16:9 clips with extract_clip',
};

/** The REST call that creates each bundle (http/routes/derivatives.ts); the horizontal one is MCP only. */
const REST_ROUTE: Readonly<Record<BundleJobType, string | null>> = {
  clips_vertical: 'POST /api/v1/jobs/{parent_job_id}/derivatives',
  clips_horizontal: null,
};

/**
 * A clip bundle (clips_vertical, clips_horizontal): N clips of one find_clips job, bought in one
 * payment (N × the item price). Created with its children (create-bundle.ts), started when paid
 * (bundle-start.ts), settled when its last child ends (bundle-status.ts); each failed child
 * refunds its own share.
 */
export function bundleComposite(type: BundleJobType): CompositeDefinition {
  return {
    type,
    kind: 'bundle',
    createRefusal: () => new AppError('wrong_endpoint', CREATED_BY[type]),
    restRoute: REST_ROUTE[type],
    paid: startBundle,
    childEnded: bundleChildEnded,
    childList: (job) => bundleParams(job).clips,
  };
}
