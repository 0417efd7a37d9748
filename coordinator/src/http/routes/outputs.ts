import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DeletedResponse, DownloadUrlResponse, ErrorResponse } from '@cutroom/shared/api';
import { TranscriptV1, TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { Ctx } from '../../context.ts';
import { deleteOutput, deleteSource } from '../../jobs/deletions.ts';
import { downloadOutput } from '../../jobs/downloads.ts';
import { requireSession } from '../../sessions/session-service.ts';
import { bearerToken } from '../auth.ts';

const RoleParams = z.object({ id: z.uuid(), role: z.string().min(1).max(64) });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const security = [{ bearer: [] }];

export const outputRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  const deps = { db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS };
  const sessionId = async (token: string | null) => (await requireSession(deps, token)).id;

  app.get('/jobs/:id/outputs/:role/download', {
    schema: {
      tags: ['outputs'],
      summary: 'Download an output',
      description: 'Omitted format or `srt`: a presigned URL. `txt`, `vtt`, `json` (v1) and `words` (v2, JSON Schema at /.well-known/cutroom-transcript-v2.schema.json) are returned inline.',
      security,
      params: RoleParams,
      // Validated by the service so an unknown format gets the spec's 400 with the list of formats.
      querystring: z.object({ format: z.string().optional() }),
      response: {
        200: z.union([DownloadUrlResponse, TranscriptV2, TranscriptV1, z.string()]),
        ...errors,
      },
    },
  }, async (req, reply) => {
    const r = await downloadOutput(ctx, await sessionId(bearerToken(req)), req.params.id, req.params.role, req.query.format);
    if (r.kind === 'url') return { download_url: r.download_url, output_id: r.output_id };
    // Inline bodies are sent as rendered; bypass the JSON serializer.
    return reply.header('content-type', r.contentType).serializer((p: unknown) => p as string).send(r.body);
  });

  app.delete('/jobs/:id/source', {
    schema: { tags: ['outputs'], summary: 'Delete the stored source now', security, params: z.object({ id: z.uuid() }), response: { 200: DeletedResponse, ...errors } },
  }, async (req) => deleteSource(ctx, await sessionId(bearerToken(req)), req.params.id));

  app.delete('/jobs/:id/outputs/:role', {
    schema: { tags: ['outputs'], summary: 'Delete an output now', security, params: RoleParams, response: { 200: DeletedResponse, ...errors } },
  }, async (req) => deleteOutput(ctx, await sessionId(bearerToken(req)), req.params.id, req.params.role));
};
