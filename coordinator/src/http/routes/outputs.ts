import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DeletedResponse, DownloadUrlResponse, ErrorResponse } from '@cutroom/shared/api';
import { TranscriptV1, TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { Ctx } from '../../context.ts';
import { deleteOutputCall, deleteSourceCall, downloadCall } from '../../service/index.ts';
import { credentialsOf } from '../auth.ts';

const RoleParams = z.object({ id: z.uuid(), role: z.string().min(1).max(64) });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const security = [{ bearer: [] }];

export const outputRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.get(
    '/jobs/:id/outputs/:role/download',
    {
      schema: {
        tags: ['outputs'],
        summary: 'Download an output',
        description:
          'Omitted format or `srt`: a presigned URL. `txt`, `vtt`, `json` (v1), `words` (v2, JSON Schema at /.well-known/cutroom-transcript-v2.schema.json) and `edit` (text/plain, one `[NNNN] text` line per sentence, NNNN the 1-based sentence number) are returned inline.',
        security,
        params: RoleParams,
        // Validated by the service so an unknown format gets the spec's 400 with the list of formats.
        querystring: z.object({ format: z.string().optional() }),
        response: {
          200: {
            description: 'A presigned URL (no format, or srt) or the transcript inline in the asked format',
            content: {
              'application/json': { schema: z.union([DownloadUrlResponse, TranscriptV2, TranscriptV1]) },
              'text/plain': { schema: z.string().describe('format=txt') },
              'text/vtt': { schema: z.string().describe('format=vtt') },
            },
          },
          ...errors,
        },
      },
    },
    async (req, reply) => {
      const r = await downloadCall(ctx, credentialsOf(ctx, req), req.params.id, req.params.role, req.query.format);
      if (r.kind === 'url') return { download_url: r.download_url, output_id: r.output_id };
      // Inline bodies are sent as rendered; bypass the JSON serializer.
      return reply
        .header('content-type', r.contentType)
        .serializer((p: unknown) => p as string)
        .send(r.body);
    },
  );

  app.delete(
    '/jobs/:id/source',
    {
      schema: {
        tags: ['outputs'],
        summary: 'Delete the stored source now',
        security,
        params: z.object({ id: z.uuid() }),
        response: { 200: DeletedResponse, ...errors },
      },
    },
    async (req) => deleteSourceCall(ctx, credentialsOf(ctx, req), req.params.id),
  );

  app.delete(
    '/jobs/:id/outputs/:role',
    {
      schema: { tags: ['outputs'], summary: 'Delete an output now', security, params: RoleParams, response: { 200: DeletedResponse, ...errors } },
    },
    async (req) => deleteOutputCall(ctx, credentialsOf(ctx, req), req.params.id, req.params.role),
  );
};
