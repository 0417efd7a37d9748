import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { AppError, isAppError } from '../../lib/app-error.ts';
import { requirePublishing } from '../../service/index.ts';
import { bindConsentRequestCall, finishConnectCall, showConsentRequestCall, showRevokeLinkCall, useRevokeLinkCall } from '../../service/index.ts';
import { bindingCookie, browserOf, clearedCookie } from '../consent-cookie.ts';
import { connectedPage, errorPage, revokedPage, revokePage, sendPage, startPage, wantsHtml, type PageOptions } from '../consent-pages.ts';
import { Connection } from './connection-schemas.ts';

/**
 * The consent flow's browser routes (no bearer): our start page and its Continue button, the
 * host's callback, and the one-time revoke link. What each guards against is in
 * publishing/consent-requests.ts and publishing/revoke-links.ts; the cookie in consent-cookie.ts.
 */

const CallbackQuery = z.object({
  state: z.string().min(1).max(512),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  scope: z.string().max(4096).optional(),
});
const CallbackResponse = z.object({
  connected: z.literal(true),
  connection: Connection,
  session_label: z.string().describe('The session that now holds the connection, as our pages name it ("session <label>")'),
  revoke_url: z.url().describe('One-time link that disconnects this connection (a confirmation page; its button revokes here and at the host)'),
});
const RequestId = z.string().min(1).max(128).describe('The connection request: `request` of its authorize_url');
const RevokeToken = z.string().min(1).max(128).describe('The token of the revoke link');
const Revoked = z.object({
  revoked: z.literal(true),
  connection: Connection,
  session_label: z.string(),
  revoked_at_host: z.boolean().describe('False when another active connection holds the same channel: its grant at the host is left to it'),
});

const NOT_CONFIGURED_400 = 'Publishing is not configured on this server (VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET unset), or the request is invalid';
const html = z.string();
const jsonOrPage = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorResponse }, 'text/html': { schema: html } },
});
const FORM = ['application/x-www-form-urlencoded'];

/**
 * A refusal (400) as a page for a browser, else thrown to the error handler (`{error}` JSON, and
 * every other status). Headers already set (the cleared cookie) stay on either.
 */
function refuse(req: FastifyRequest, reply: FastifyReply, title: string, e: unknown, opts?: PageOptions) {
  if (wantsHtml(req) && isAppError(e) && e.status === 400) return sendPage(reply, 400, errorPage(title, e.message), opts);
  throw e;
}

/**
 * Continue must be pressed on our start page. A browser says where a POST comes from (Sec-Fetch-Site,
 * Origin; the start page's Referrer-Policy keeps Origin real): another site's auto-submitting form
 * posting a stolen request id from a victim's browser would bind the victim's browser to it without
 * the victim ever seeing which session it names. A request that says neither is refused as well.
 */
function fromOurStartPage(req: FastifyRequest, origin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  const from = req.headers.origin;
  if (site !== undefined && site !== 'same-origin') return false;
  if (from !== undefined && from !== origin) return false;
  return site !== undefined || from !== undefined;
}

export const consentRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  const origin = new URL(ctx.config.publicBaseUrl).origin;
  // The Continue and Disconnect buttons post HTML forms (this plugin's routes only).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  /** The start page posts to itself, and is then sent on to the host's consent page. */
  const startForm = (): PageOptions => ({ formAction: ["'self'", new URL(requirePublishing(ctx).authUrl).origin], referrer: 'same-origin' });

  app.get(
    '/connections/video-host/start',
    {
      schema: {
        tags: ['connections'],
        summary: 'The start page of a connection request (a browser opens authorize_url)',
        description:
          'No bearer. A page on this server naming the session the channel would be connected to ("session <session_label>", its creation time), ' +
          'with one button, Continue (POST to this path). 400 (a page for a browser) when the request is unknown, used or expired, its session expired, ' +
          'or it was already opened in another browser (the one that pressed Continue first).',
        querystring: z.object({ request: RequestId }),
        response: {
          200: { description: 'The start page', content: { 'text/html': { schema: html } } },
          400: jsonOrPage(`${NOT_CONFIGURED_400}: unknown, used or expired request, or opened in another browser`),
        },
      },
    },
    async (req, reply) => {
      try {
        const view = await showConsentRequestCall(ctx, req.query.request, browserOf(req));
        return sendPage(reply, 200, startPage(view), startForm());
      } catch (e) {
        return refuse(req, reply, 'Cannot connect', e);
      }
    },
  );

  app.post(
    '/connections/video-host/start',
    {
      config: { idempotency: false },
      schema: {
        tags: ['connections'],
        summary: 'Continue: bind the connection request to this browser and go to the video host',
        description:
          'The start page’s button (a form post from that page: Origin or Sec-Fetch-Site must say so). The first browser to press it is bound to the request ' +
          '(an HttpOnly, SameSite=Lax cookie for the request’s remaining life); that browser may press again (a new host link each time), any other is refused. ' +
          '303 to the video host’s consent page (PKCE S256, offline access); the host sends the browser back to the callback, which honours only this browser.',
        consumes: FORM,
        body: z.object({ request: RequestId }),
        response: {
          303: z.null().describe('To the video host’s consent page (Location), with the consent cookie set; no body'),
          400: jsonOrPage(`${NOT_CONFIGURED_400}: not posted from the start page, unknown, used or expired request, or opened in another browser`),
        },
      },
    },
    async (req, reply) => {
      try {
        const settings = requirePublishing(ctx);
        if (!fromOurStartPage(req, origin))
          throw new AppError(
            'invalid_request',
            'press Continue on the start page itself (this form was posted from another site, or did not say where from): nothing was connected',
          );
        const binding = await bindConsentRequestCall(ctx, req.body.request, browserOf(req));
        return reply
          .header('set-cookie', bindingCookie(settings, binding, ctx.clock.now(), secure))
          .header('cache-control', 'no-store')
          .redirect(binding.hostUrl, 303);
      } catch (e) {
        return refuse(req, reply, 'Cannot connect', e);
      }
    },
  );

  app.get(
    '/connections/video-host/callback',
    {
      schema: {
        tags: ['connections'],
        summary: 'Where the video host sends the browser back after consent',
        description:
          'No bearer: the `state` names the request, and only the browser bound to it on the start page (its consent cookie) can finish it. ' +
          'Another browser: 400, nothing connected, the code is not exchanged, and the request is burned. With `code`: exchanged for tokens (kept encrypted, never shown) ' +
          'and stored as the session’s connection; the answer names the session and gives a one-time revoke link. With `error` (consent denied): 400, nothing connected. ' +
          'An unknown, expired or already used `state`: 400. The consent cookie is cleared whatever the answer. JSON, or a page when the Accept header asks for text/html.',
        querystring: CallbackQuery,
        response: {
          200: {
            description: 'Connected',
            content: { 'application/json': { schema: CallbackResponse }, 'text/html': { schema: html } },
          },
          400: jsonOrPage(`${NOT_CONFIGURED_400}: not started in this browser, unknown, expired or used state, consent denied, code refused by the host`),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      reply.header('cache-control', 'no-store');
      if (ctx.config.videoHost) reply.header('set-cookie', clearedCookie(ctx.config.videoHost, q.state, secure));
      try {
        const r = await finishConnectCall(ctx, { state: q.state, code: q.code, error: q.error }, browserOf(req));
        if (!wantsHtml(req)) return r;
        return sendPage(reply, 200, connectedPage(r));
      } catch (e) {
        return refuse(req, reply, 'Not connected', e);
      }
    },
  );

  app.get(
    '/connections/video-host/revoke',
    {
      schema: {
        tags: ['connections'],
        summary: 'The one-time revoke link of a connection: a confirmation page',
        description:
          'No bearer: the token, from the callback’s answer, is the credential. Opening it changes nothing (link previewers only look); its button (POST) disconnects. ' +
          '400 (a page for a browser) when the link was used, is unknown, or its connection is no longer active.',
        querystring: z.object({ token: RevokeToken }),
        response: {
          200: { description: 'The confirmation page', content: { 'text/html': { schema: html } } },
          400: jsonOrPage(`${NOT_CONFIGURED_400}: a used or unknown link, or a connection no longer active`),
        },
      },
    },
    async (req, reply) => {
      try {
        const view = await showRevokeLinkCall(ctx, req.query.token);
        return sendPage(reply, 200, revokePage(view, req.query.token), { formAction: ["'self'"] });
      } catch (e) {
        return refuse(req, reply, 'Cannot disconnect', e);
      }
    },
  );

  app.post(
    '/connections/video-host/revoke',
    {
      config: { idempotency: false },
      schema: {
        tags: ['connections'],
        summary: 'Disconnect by the one-time revoke link',
        description:
          'The revoke page’s button: the connection becomes `revoked` ("disconnected from the consent page") and its grant is revoked at the host (unless another ' +
          'active connection holds the same channel: one grant serves both); the link is used up. ' +
          'A page for a browser, else JSON. 400 when the link was used, is unknown, or its connection is no longer active.',
        consumes: FORM,
        body: z.object({ token: RevokeToken }),
        response: {
          200: { description: 'Disconnected', content: { 'application/json': { schema: Revoked }, 'text/html': { schema: html } } },
          400: jsonOrPage(`${NOT_CONFIGURED_400}: a used or unknown link, or a connection no longer active`),
        },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      try {
        const view = await useRevokeLinkCall(ctx, req.body.token);
        if (!wantsHtml(req)) return { revoked: true as const, ...view };
        return sendPage(reply, 200, revokedPage(view));
      } catch (e) {
        return refuse(req, reply, 'Cannot disconnect', e);
      }
    },
  );
};
