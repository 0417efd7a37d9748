import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DeletedResponse, ErrorResponse } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { listConnectionsCall, revokeConnectionCall, startConnectCall } from '../../service/index.ts';
import { credentialsOf } from '../auth.ts';
import { Connection } from './connection-schemas.ts';

const ConnectResponse = z.object({
  connection_request: z.object({
    authorize_url: z
      .url()
      .describe(
        'Our start page for this request (PUBLIC_BASE_URL/api/v1/connections/video-host/start?request=…): open it in the browser your user consents in. ' +
          'It names the session; its Continue button binds the request to that browser and goes on to the video host’s consent page.',
      ),
    expires_at: z.string().describe('The request, and consent at the host, must be finished before this (10 minutes)'),
    session_label: z
      .string()
      .describe('How our pages name this session ("session <label>"): tell your user the page should name it, and to close the page if it names another'),
  }),
});

const NOT_CONFIGURED_400 = 'Publishing is not configured on this server (VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET unset), or the request is invalid';
const security = [{ bearer: [] }];

/** Connecting a video host account by OAuth consent (publishing/connections.ts), for publish_video: the session's calls. The browser's are in consent.ts. */
export const connectionRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/connections/video-host',
    {
      config: { limit: 'job_create' },
      schema: {
        tags: ['connections'],
        summary: 'Start connecting a video host account (OAuth consent)',
        description:
          'Returns `authorize_url`, our start page for the request: open it in the browser your user consents in. The page names the session; its Continue ' +
          'button binds the request to that browser (a cookie) and sends it to the host’s consent page (PKCE S256, offline access); the host sends the browser ' +
          'back to GET /api/v1/connections/video-host/callback, which stores the connection only in that same browser and shows a one-time revoke link. ' +
          'A session has at most one active connection: a new one replaces the old. The request expires after 10 minutes and can be used once. ' +
          '400 when publishing is not configured on this server.',
        security,
        response: { 201: ConnectResponse, 400: ErrorResponse.describe(NOT_CONFIGURED_400) },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .header('cache-control', 'no-store')
        .send(await startConnectCall(ctx, credentialsOf(ctx, req))),
  );

  app.get(
    '/connections',
    {
      schema: {
        tags: ['connections'],
        summary: 'The session’s video host connections (never a token)',
        security,
        response: { 200: z.object({ connections: z.array(Connection) }), 400: ErrorResponse.describe(NOT_CONFIGURED_400) },
      },
    },
    async (req) => listConnectionsCall(ctx, credentialsOf(ctx, req)),
  );

  app.delete(
    '/connections/:id',
    {
      schema: {
        tags: ['connections'],
        summary: 'Disconnect: revoke the grant at the host and here',
        description: 'Another session’s connection is a 404. Deleting a revoked connection again answers the same.',
        security,
        params: z.object({ id: z.uuid() }),
        response: { 200: DeletedResponse, 400: ErrorResponse.describe(NOT_CONFIGURED_400), 404: ErrorResponse },
      },
    },
    async (req) => revokeConnectionCall(ctx, credentialsOf(ctx, req), req.params.id),
  );
};
