import type { CreateJobResponse } from '@cutroom/shared/api';
import type { AgentProduct, ClipsFromVideoRequest, ClipsYoutubeRequest } from '@cutroom/shared/products';
import type { Ctx } from '../context.ts';
import { createProduct } from '../composites/products/create-product.ts';
import { jobCreatorOf } from './caller.ts';
import type { Credentials } from './credentials.ts';
import type { Served } from './job-calls.ts';

/**
 * Creates an agent product (clips_from_video, clips_youtube): an upload job whose find_clips and
 * clips run as its children, paid by a card hold of the worst case (price_cents, USD 4.50) of
 * which only what was delivered is captured (composites/products/). Then the ordinary upload calls:
 * uploadUrlCall (402 with the card challenge for the hold while unpaid; a `stripe` credential
 * places the hold), PUT, completeUploadCall, getJobCall until it ends.
 *
 * Callers as createJobCall: a bearer session owns the product; without one, billing on, the call
 * is paid creation (402 with a challenge bound to this request; the credential's hold creates the
 * product and a session, whose token is in the result); billing off, a session is required.
 * Billing on without a card rail: 400 (card only). Refusals come before anything is written.
 */
export async function createProductCall(
  ctx: Ctx,
  creds: Credentials,
  product: AgentProduct,
  req: ClipsFromVideoRequest | ClipsYoutubeRequest,
): Promise<Served<CreateJobResponse>> {
  const created = await createProduct(ctx, await jobCreatorOf(ctx, creds), product, req);
  return { value: created.body, receipt: created.receipt };
}
