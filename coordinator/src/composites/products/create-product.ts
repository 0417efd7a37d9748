import { randomUUID } from 'node:crypto';
import { type ClipTarget, clipTargetForCap } from '@cutroom/shared/clips/clip-targets';
import { DEFAULT_VERTICAL_PROFILE, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import { priceOf } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import { ClipsFromVideoRequest, ClipsYoutubeRequest, type AgentProduct } from '@cutroom/shared/products';
import type { Ctx } from '../../context.ts';
import type { PreparedJob } from '../../job-types/definition.ts';
import { definitionOf } from '../../job-types/agent-types.ts';
import { AppError } from '../../lib/app-error.ts';
import { createUploadJob, type CreatedJob, type JobCaller } from '../../jobs/create-job.ts';
import { ProductParams, productParams } from './product-params.ts';

const SCHEMAS = { clips_from_video: ClipsFromVideoRequest, clips_youtube: ClipsYoutubeRequest } as const;

/**
 * What the find_clips child sizes its candidates for: clips_from_video asks for the target its
 * profile's cap takes whole (vidB-stories, 60 s: `short`), so the candidates end where the
 * speaker ends rather than being trimmed at the cap; otherwise the default (clip-targets.ts).
 */
function findClipsTargetOf(product: AgentProduct, request: ClipsFromVideoRequest | ClipsYoutubeRequest): ClipTarget | null {
  if (product !== 'clips_from_video') return null;
  const profile = (request as ClipsFromVideoRequest).profile ?? DEFAULT_VERTICAL_PROFILE;
  return clipTargetForCap(VERTICAL_PROFILES[profile].maxSeconds);
}

/**
 * Checks a product request and prepares its row, nothing written: the schema (every failing field
 * named), then the find_clips child through find_clips' own prepare() (filename, content type,
 * query, and the target the profile needs), then that the upload is a video (the clips need one).
 * Its clips are prepared later, against the find_clips child's probe and candidates (product-steps.ts).
 */
export function prepareProduct(product: AgentProduct, raw: unknown): { id: string; prepared: PreparedJob } {
  const parsed = SCHEMAS[product].safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`);
    throw new AppError('invalid_request', `invalid ${product} request: ${problems.join('; ')}`);
  }
  const request = parsed.data;
  const target = findClipsTargetOf(product, request);
  const find = definitionOf('find_clips').prepare(
    {
      job_type: 'find_clips',
      filename: request.filename,
      content_type: request.content_type,
      query: request.query,
      language: request.language,
      ...(target && { target }),
    },
    null,
  );
  if (find.mediaKind !== 'video') {
    throw new AppError(
      'unsupported_media',
      `${product} cuts clips from a video; content_type ${request.content_type} is ${find.mediaKind}: send a video (or use find_clips for audio)`,
    );
  }
  const params = ProductParams.parse({
    product,
    request,
    find_clips: { job_id: randomUUID(), params: find.params, price_cents: find.price.cardCents },
    max_clips: request.max_clips ?? LIMITS.clipsPerBatchMax,
  });
  const price = priceOf(product, 'video')!;
  return {
    id: randomUUID(),
    prepared: { originalFilename: find.originalFilename, contentType: find.contentType, mediaKind: 'video', price, params: { ...params } },
  };
}

/**
 * Creates an agent product (clips_from_video, clips_youtube): one upload job that becomes a
 * find_clips child and up to max_clips clip children (jobs/products/). Card only: its price is a
 * hold of the worst case, captured for what is delivered when the last step ends.
 * - Billing off: created paid (amount 0) and uploading, like any upload job.
 * - Billing on, session caller: pending, with a hosted checkout that only authorizes (manual
 *   capture); the gated upload-url / complete-upload take an MPP `stripe` credential as a hold.
 * - Billing on, no session, a payment credential: paid creation, as POST /jobs: the credential's
 *   challenge is bound to this request; its hold creates the job and a session (token returned).
 * Billing on without a card rail: refused (400) before anything is written.
 */
export async function createProduct(ctx: Ctx, caller: JobCaller, product: AgentProduct, raw: unknown): Promise<CreatedJob> {
  const { id, prepared } = prepareProduct(product, raw);
  if (ctx.billing.enabled && !ctx.billing.card) {
    throw new AppError(
      'invalid_request',
      `${product} is paid by card only (a hold of USD 4.50, charged for what is delivered), and card payments are not configured on this server`,
    );
  }
  const { request } = productParams(prepared);
  return createUploadJob(ctx, caller, {
    id,
    jobType: product,
    prepared,
    description: `cutroom ${product} job: a hold of up to USD ${(prepared.price.cardCents / 100).toFixed(2)}, charged for what is delivered`,
    request: { job_type: product, ...request },
  });
}
