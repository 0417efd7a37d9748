import { and, eq, ne } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { hostConnections } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { hashToken } from '../lib/tokens.ts';
import { connectionView, revokeAtHost, revokeByLinkHash, type ConnectionView } from './connections.ts';
import { requirePublishing } from './publishing-settings.ts';
import { sessionLabel } from './session-label.ts';

/**
 * The one-time revoke link the consent's success page shows (finishConnect makes it): whoever
 * consented can undo it without the session's token, e.g. a user who notices the page named a
 * session that is not theirs. The token (32 random bytes) is its only credential: only its
 * SHA-256 is stored and looked up, it works once, and only while its connection is `active`
 * (every way out of `active` clears it). Opening the link shows a page (link previewers and
 * prefetchers only GET); its form's POST revokes.
 */

export interface RevokeLinkView {
  connection: ConnectionView;
  session_label: string;
}

export interface RevokedByLink extends RevokeLinkView {
  /** False when another active connection holds the same account: revoking at the host would end that one too (one grant per account and client). */
  revoked_at_host: boolean;
}

const unusable = () =>
  new AppError(
    'invalid_request',
    'this revoke link was already used, is unknown, or its connection is no longer active (disconnected, replaced or revoked): nothing to disconnect',
  );

/** The connection a link would disconnect; 400 when the link cannot be used. */
export async function showRevokeLink(ctx: Ctx, token: string): Promise<RevokeLinkView> {
  requirePublishing(ctx);
  const [row] = await ctx.db
    .select()
    .from(hostConnections)
    .where(and(eq(hostConnections.revokeTokenHash, hashToken(token)), eq(hostConnections.status, 'active')))
    .limit(1);
  if (!row) throw unusable();
  return { connection: connectionView(row), session_label: sessionLabel(row.sessionId) };
}

/**
 * Disconnects by the link: `revoked` here (the link burned in the same statement), then the grant
 * revoked at the host (best effort), unless another active connection holds the same account.
 * Revoked here is what stops the session: its tokens never left this server.
 */
export async function useRevokeLink(ctx: Ctx, token: string): Promise<RevokedByLink> {
  requirePublishing(ctx);
  const row = await revokeByLinkHash(ctx, hashToken(token));
  if (!row) throw unusable();
  const [shared] = row.accountId
    ? await ctx.db
        .select({ id: hostConnections.id })
        .from(hostConnections)
        .where(
          and(
            eq(hostConnections.accountId, row.accountId),
            eq(hostConnections.host, row.host),
            eq(hostConnections.status, 'active'),
            ne(hostConnections.id, row.id),
          ),
        )
        .limit(1)
    : [];
  if (!shared) await revokeAtHost(ctx, row);
  return { connection: connectionView(row), session_label: sessionLabel(row.sessionId), revoked_at_host: !shared };
}
