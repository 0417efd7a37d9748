import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';
import { CreateBundleRequest, CreateBundleResponse } from '@cutroom/shared/bundles';
import type { Ctx } from '../../context.ts';
import { createBundleCall } from '../../service/index.ts';
import { credentialsOf, sendServed } from '../auth.ts';

const ParentParams = z.object({ parent_job_id: z.uuid() });

/** POST /jobs/{parent_job_id}/derivatives: clip bundles (clips_vertical) from a find_clips job. Card only: no 402 here. */
export const derivativeRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/jobs/:parent_job_id/derivatives',
    {
      config: { limit: 'job_create' },
      schema: {
        tags: ['jobs'],
        summary: 'Create a clips_vertical bundle (1-5 vertical clips) from a find_clips job: one purchase, one bundle job, one child job per clip',
        description:
          'Bearer of the session that owns the parent find_clips job. Body: job_type `clips_vertical` and `clips` (1-5 entries); each entry names a candidate of the parent ' +
          '(`candidate_id`: `c1`, `c2`, … as in its `clips` output) or gives `start`/`end` (seconds of the parent), with an optional `title` (<= 200 chars) and the ' +
          'extract_vertical_clip options `profile`, `subject`, `subject_id`, `subject_box`, `t_ref`, `subject_x_offset` per clip. Everything is checked before payment ' +
          '(parent 404/403/400/409/410 as for derivatives; an unknown candidate, a window outside the media or over the profile cap: 400), so a refused bundle costs nothing. ' +
          'Card only, no MPP challenge: the response carries the bundle job (`job_id`, `price_cents` = quantity × `unit_price_cents`) and a hosted `checkout_url` with one line item of quantity N; ' +
          'when it is paid the N child jobs (extract_vertical_clip, `bundle_job_id` set, payment_status `paid_by_parent`) start. Billing off: created paid and started. ' +
          'Poll GET /jobs/{job_id}: the bundle is `analyzing` while any clip runs, then `completed` (at least one clip delivered; its outputs are the children’s, roles `clip_1`, `subjects_1`, …, and `children` lists each clip) ' +
          'or `failed` and refunded when every clip failed. A clip that fails refunds one clip’s price (a partial refund of the card payment), not the whole bundle. ' +
          'clips_horizontal (16:9 clips in the source framing) is offered through MCP, not here: 400.',
        security: [{ bearer: [] }],
        params: ParentParams,
        body: CreateBundleRequest,
        response: {
          201: CreateBundleResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          409: ErrorResponse,
          410: ErrorResponse,
        },
      },
    },
    async (req, reply) => {
      const served = await createBundleCall(ctx, credentialsOf(ctx, req), req.params.parent_job_id, req.body, 'rest');
      return reply.status(201).send(sendServed(reply, served));
    },
  );
};
