import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectionView } from '../service/index.ts';

/**
 * The pages of the consent flow, on our own domain: the start page (which session, Continue),
 * the callback's answer (which session now holds the channel, the one-time revoke link), the
 * revoke page and its answer. Plain HTML: no script, one inline style allowed by its hash. The
 * security headers of every answer stay (no framing: `frame-ancestors 'none'`, X-Frame-Options
 * DENY, so no button here can be clickjacked); what a page changes is said where it does.
 */

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:38rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}';
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A browser (Accept: text/html) gets pages for its errors too; API clients get the `{error}` JSON. */
export const wantsHtml = (req: FastifyRequest) => /\btext\/html\b/.test(req.headers.accept ?? '');

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head><body><h1>${esc(title)}</h1>${body}</body></html>`
  );
}

export interface PageOptions {
  /** Where this page's form may post (and be redirected to): CSP form-action. @default none */
  formAction?: string[];
  /**
   * The start page's form needs its own origin in the POST's Origin header (checked there); the
   * default `no-referrer` makes browsers send `Origin: null`. `same-origin` sends no referrer off our origin.
   */
  referrer?: 'same-origin';
}

export function sendPage(reply: FastifyReply, status: number, html: string, opts: PageOptions = {}) {
  const formAction = opts.formAction?.length ? opts.formAction.join(' ') : "'none'";
  reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', `default-src 'none'; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'; style-src ${STYLE_HASH}`);
  if (opts.referrer) reply.header('referrer-policy', opts.referrer);
  return reply
    .type('text/html; charset=utf-8')
    .serializer((p: unknown) => p as string)
    .send(html);
}

/** A refusal as a page: what went wrong, in the words of the error. */
export const errorPage = (title: string, message: string) => page(title, `<p>${esc(message)}</p>`);

/** The start page: which session the channel would go to, and the one button. */
export function startPage(v: { requestId: string; sessionLabel: string; sessionCreatedAt: Date; expiresAt: Date }): string {
  const session = `cutroom session ${esc(v.sessionLabel)}`;
  return page(
    'Connect a video channel',
    `<p>You are about to connect a video channel to <strong>${session}</strong> (created ${when(v.sessionCreatedAt)}). ` +
      'Whoever holds that session can then publish videos to the channel.</p>' +
      `<p><strong>Continue only if you started this from your own app</strong> and it names session ${esc(v.sessionLabel)}. ` +
      'If someone sent you this link, close this page: they would publish to your channel.</p>' +
      `<form method="post" action="start"><input type="hidden" name="request" value="${esc(v.requestId)}">` +
      '<button type="submit">Continue to the video host</button></form>' +
      `<p>This request works in this browser only, until ${when(v.expiresAt)}.</p>`,
  );
}

const who = (c: ConnectionView) => c.account_title ?? c.account_id ?? 'Your account';

/** The callback's success: the session that holds the channel now, and the link that undoes it. */
export function connectedPage(a: { connection: ConnectionView; session_label: string; revoke_url: string }): string {
  return page(
    'Connected',
    `<p>${esc(who(a.connection))} is connected to <strong>cutroom session ${esc(a.session_label)}</strong>: that session can now publish to it. ` +
      'You can close this window.</p>' +
      `<p>Not the session your app named, or not what you meant? <a href="${esc(a.revoke_url)}">Disconnect this channel</a> ` +
      '(the link works once; keep it private).</p>',
  );
}

/** The revoke link opened: a confirmation (opening it changes nothing), the button posts. */
export function revokePage(v: { connection: ConnectionView; session_label: string }, token: string): string {
  return page(
    'Disconnect a video channel',
    `<p>Disconnect ${esc(who(v.connection))} from <strong>cutroom session ${esc(v.session_label)}</strong>? ` +
      'The session can then no longer publish to it, and its access is revoked at the video host (unless another cutroom session also holds this channel).</p>' +
      `<form method="post" action="revoke"><input type="hidden" name="token" value="${esc(token)}">` +
      '<button type="submit">Disconnect</button></form>',
  );
}

export function revokedPage(v: { connection: ConnectionView; session_label: string; revoked_at_host: boolean }): string {
  const host = v.revoked_at_host
    ? 'and its access was revoked at the video host'
    : 'and can no longer publish to it (its access at the video host stays: another cutroom session also holds this channel)';
  return page(
    'Disconnected',
    `<p>${esc(who(v.connection))} is no longer connected to cutroom session ${esc(v.session_label)}, ${host}. You can close this window.</p>`,
  );
}
