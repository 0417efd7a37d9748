import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DeletedResponse, ErrorResponse } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { isAppError } from '../../lib/app-error.ts';
import { finishConnectCall, listConnectionsCall, revokeConnectionCall, startConnectCall } from '../../service/index.ts';
import { credentialsOf } from '../auth.ts';

const Connection = z.object({
  id: z.uuid(),
  host: z.string().describe('`video_host`'),
  account_id: z.string().nullable().describe('The channel id the host reported; null when it did not say'),
  account_title: z.string().nullable(),
  scopes: z.array(z.string()).describe('Scopes the account granted'),
  status: z
    .enum(['active', 'revoked', 'invalid'])
    .describe('active: usable; revoked: disconnected (by you, or replaced by a newer connection); invalid: the host refused it, connect again'),
  status_reason: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
const ConnectResponse = z.object({
  connection_request: z.object({
    authorize_url: z.url().describe("The video host's consent page: open it in a browser"),
    state: z.string().describe('Names this request; the host sends it back to the callback'),
    expires_at: z.string().describe('Consent must come back before this (10 minutes)'),
  }),
});
const CallbackResponse = z.object({ connected: z.literal(true), connection: Connection });
const CallbackQuery = z.object({
  state: z.string().min(1).max(512),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  scope: z.string().max(4096).optional(),
});

const NOT_CONFIGURED_400 = 'Publishing is not configured on this server (VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET unset), or the request is invalid';
const security = [{ bearer: [] }];
const html = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A browser landing on the callback (Accept: text/html) gets a page; API clients get JSON. */
const wantsHtml = (req: FastifyRequest) => /\btext\/html\b/.test(req.headers.accept ?? '');
const sendHtml = (reply: FastifyReply, status: number, page: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .serializer((p: unknown) => p as string)
    .send(page);

/** Connecting a video host account by OAuth consent (publishing/connections.ts), for publish_video. */
export const connectionRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/connections/video-host',
    {
      config: { limit: 'job_create' },
      schema: {
        tags: ['connections'],
        summary: 'Start connecting a video host account (OAuth consent)',
        description:
          'Returns the host’s consent URL (PKCE S256, offline access) for the session: open `authorize_url` in a browser and consent; the host then sends the browser ' +
          'to GET /api/v1/connections/video-host/callback, which stores the connection. A session has at most one active connection: a new one replaces the old. ' +
          'The request expires after 10 minutes and can be used once. 400 when publishing is not configured on this server.',
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
    '/connections/video-host/callback',
    {
      schema: {
        tags: ['connections'],
        summary: 'Where the video host sends the browser back after consent',
        description:
          'No bearer: the `state` names the session that asked. With `code`: exchanged for tokens (kept encrypted, never shown) and stored as the session’s connection. ' +
          'With `error` (consent denied): 400, nothing connected. An unknown, expired or already used `state`: 400. JSON, or a small page when the Accept header asks for text/html.',
        querystring: CallbackQuery,
        response: {
          200: {
            description: 'Connected',
            content: { 'application/json': { schema: CallbackResponse }, 'text/html': { schema: z.string() } },
          },
          400: {
            description: `${NOT_CONFIGURED_400}: unknown, expired or used state, consent denied, code refused by the host`,
            content: { 'application/json': { schema: ErrorResponse }, 'text/html': { schema: z.string() } },
          },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      reply.header('cache-control', 'no-store');
      try {
        const r = await finishConnectCall(ctx, { state: q.state, code: q.code, error: q.error });
        if (!wantsHtml(req)) return r;
        const who = r.connection.account_title ?? r.connection.account_id ?? 'your account';
        return sendHtml(reply, 200, html('Connected', `${who} is connected. You can close this window.`));
      } catch (e) {
        if (wantsHtml(req) && isAppError(e) && e.status === 400) return sendHtml(reply, 400, html('Not connected', e.message));
        throw e;
      }
    },
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
