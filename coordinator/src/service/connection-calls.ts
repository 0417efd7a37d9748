import type { Ctx } from '../context.ts';
import {
  bindConsentRequest,
  showConsentRequest,
  startConnect,
  type BrowserNonces,
  type ConnectionRequest,
  type ConsentBinding,
  type ConsentRequestView,
} from '../publishing/consent-requests.ts';
import {
  finishConnect,
  listConnections,
  requirePublishing,
  revokeConnection,
  type Connected,
  type ConnectionView,
  type ConsentAnswer,
} from '../publishing/connections.ts';
import { showRevokeLink, useRevokeLink, type RevokedByLink, type RevokeLinkView } from '../publishing/revoke-links.ts';
import { sessionOf } from './caller.ts';
import type { Credentials } from './credentials.ts';

// Publishing that is not configured is refused first: the same 400 whoever asks, before any session check.

/** A consent request for the caller's session: the caller opens `authorize_url` (our start page) in its user's browser. */
export async function startConnectCall(ctx: Ctx, creds: Credentials): Promise<{ connection_request: ConnectionRequest }> {
  requirePublishing(ctx);
  const session = await sessionOf(ctx, creds);
  return { connection_request: await startConnect(ctx, session.id) };
}

// The browser's calls: no bearer. The request id, the state or the revoke token names what they act on,
// and the browser's consent cookie (`browser`) says whether it may.

/** The start page's request. */
export const showConsentRequestCall = (ctx: Ctx, requestId: string, browser: BrowserNonces): Promise<ConsentRequestView> =>
  showConsentRequest(ctx, requestId, browser);

/** Continue pressed: the browser bound, and the host's consent URL for it. */
export const bindConsentRequestCall = (ctx: Ctx, requestId: string, browser: BrowserNonces): Promise<ConsentBinding> =>
  bindConsentRequest(ctx, requestId, browser);

/** Where the host sends the browser back: the state names the request, the browser must be the one bound to it. */
export async function finishConnectCall(ctx: Ctx, answer: ConsentAnswer, browser: BrowserNonces): Promise<{ connected: true } & Connected> {
  return { connected: true, ...(await finishConnect(ctx, answer, browser)) };
}

export const showRevokeLinkCall = (ctx: Ctx, token: string): Promise<RevokeLinkView> => showRevokeLink(ctx, token);

export const useRevokeLinkCall = (ctx: Ctx, token: string): Promise<RevokedByLink> => useRevokeLink(ctx, token);

export async function listConnectionsCall(ctx: Ctx, creds: Credentials): Promise<{ connections: ConnectionView[] }> {
  requirePublishing(ctx);
  return { connections: await listConnections(ctx, (await sessionOf(ctx, creds)).id) };
}

export async function revokeConnectionCall(ctx: Ctx, creds: Credentials, connectionId: string): Promise<{ deleted: true }> {
  requirePublishing(ctx);
  await revokeConnection(ctx, (await sessionOf(ctx, creds)).id, connectionId);
  return { deleted: true };
}
