import { isUniqueViolation } from '../db/pg-errors.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { hostConnections, type HostConnectionRow, type HostConnectionStatus } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken } from '../lib/tokens.ts';
import { takeConsentState, type BrowserNonces } from './consent-requests.ts';
import { GrantInvalidError, HostCallError, hostOAuth } from './oauth.ts';
import { requirePublishing } from './publishing-settings.ts';
import { sessionLabel } from './session-label.ts';
import { TokenSealError, tokenCipherOf } from './token-crypto.ts';

export type { HostConnectionRow };
export type { ConnectionRequest } from './consent-requests.ts';
export { PUBLISHING_NOT_CONFIGURED, requirePublishing } from './publishing-settings.ts';

/** The one host there is; the column leaves room for others. */
export const VIDEO_HOST = 'video_host';
/** Why a connection whose refresh token the host refuses (invalid_grant) is `revoked`: the user ended the grant there, or it expired. */
export const REVOKED_AT_HOST = 'revoked at the video host';
/** An access token this close to its expiry is refreshed first (an upload step must not start with a dying token). */
const REFRESH_MARGIN_MS = 60_000;

/** A connection as callers see it: never a token. */
export interface ConnectionView {
  id: string;
  host: string;
  account_id: string | null;
  account_title: string | null;
  scopes: string[];
  status: HostConnectionStatus;
  status_reason: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** The connection is revoked or invalid: the account must be connected again. The publish workflow fails (and refunds) on it. */
export class ReconnectRequiredError extends AppError {
  readonly connectionId: string;
  constructor(connectionId: string, why: string) {
    super(
      'invalid_request',
      `the video host account connection ${connectionId} ${why}: connect the account again (a new connection request and consent at the host), then retry`,
    );
    this.connectionId = connectionId;
  }
}

export function connectionView(row: HostConnectionRow): ConnectionView {
  return {
    id: row.id,
    host: row.host,
    account_id: row.accountId,
    account_title: row.accountTitle,
    scopes: row.scopes.split(' ').filter(Boolean),
    status: row.status,
    status_reason: row.statusReason,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export interface ConsentAnswer {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
}

/** A finished consent, for the browser that gave it: which session holds the channel now, and the one-time link that disconnects it. */
export interface Connected {
  connection: ConnectionView;
  session_label: string;
  revoke_url: string;
}

/**
 * The host's redirect after consent, in the browser that came back: the state is taken (once,
 * unexpired, and only by the browser bound to it: consent-requests.ts), the code exchanged with
 * its verifier, and the connection stored, replacing (revoking) the session's active one. The
 * answer carries a one-time revoke link (only its SHA-256 is stored: revoke-links.ts).
 */
export async function finishConnect(ctx: Ctx, answer: ConsentAnswer, browser: BrowserNonces): Promise<Connected> {
  const settings = requirePublishing(ctx);
  const cipher = tokenCipherOf(ctx.config);
  const request = await takeConsentState(ctx, answer.state, browser);
  if (answer.error) {
    const code = answer.error.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64);
    throw new AppError(
      'invalid_request',
      code === 'access_denied'
        ? 'consent was denied at the video host: nothing was connected; make a new connection request to try again'
        : `the video host answered the consent with error "${code}": nothing was connected; make a new connection request to try again`,
    );
  }
  if (!answer.code) throw new AppError('invalid_request', 'the consent answer carries neither code nor error: make a new connection request');
  const oauth = hostOAuth(settings);
  let verifier: string;
  try {
    verifier = cipher.open(request.codeVerifierEnc);
  } catch {
    throw new AppError('invalid_request', 'this connection request can no longer be completed (the server key changed): make a new connection request');
  }
  const grant = await oauth.exchangeCode(answer.code, verifier).catch((e: unknown) => {
    throw refusal(ctx, e, 'exchange the authorization code');
  });
  if (!grant.refreshToken)
    throw new AppError('invalid_request', 'the video host granted no refresh token, so publishing could not run later: make a new connection request');
  const granted = grant.scopes ?? settings.scopes;
  const missing = settings.scopes.filter((s) => !granted.includes(s));
  if (missing.length)
    throw new AppError(
      'invalid_request',
      `the account did not grant ${missing.join(', ')}, which publishing needs: make a new connection request and allow every permission asked`,
    );
  // Informational, and only what the host says: a host that cannot tell leaves it empty.
  const channel = await oauth.channel(grant.accessToken).catch((e: unknown) => {
    ctx.logger.warn(
      { status: e instanceof HostCallError ? e.status : null },
      'video host channels.list failed: the connection is stored without its account id',
    );
    return null;
  });
  const now = ctx.clock.now();
  const revokeToken = randomBytes(32).toString('base64url');
  const row: HostConnectionRow = {
    id: randomUUID(),
    sessionId: request.sessionId,
    host: VIDEO_HOST,
    accountId: channel?.id ?? null,
    accountTitle: channel?.title ?? null,
    scopes: granted.join(' '),
    refreshTokenEnc: cipher.seal(grant.refreshToken),
    accessTokenEnc: cipher.seal(grant.accessToken),
    accessExpiresAt: grant.expiresInMs === null ? null : addMs(now, grant.expiresInMs),
    status: 'active',
    statusReason: null,
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
    revokeTokenHash: hashToken(revokeToken),
  };
  const replaced = await storeReplacing(ctx, row);
  // Revoking at the host ends the whole grant of that account for this client: only an old grant of another account is revoked there.
  for (const old of replaced) {
    if (old.accountId && row.accountId && old.accountId !== row.accountId) await revokeAtHost(ctx, old);
  }
  return {
    connection: connectionView(row),
    session_label: sessionLabel(row.sessionId),
    revoke_url: `${settings.revokePageUrl}?token=${revokeToken}`,
  };
}

/** Inserts the new connection and revokes the session's active one, in one transaction; a concurrent connect is retried once. */
async function storeReplacing(ctx: Ctx, row: HostConnectionRow): Promise<HostConnectionRow[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const replaced = await tx
          .update(hostConnections)
          .set({ ...REVOKED, statusReason: 'replaced by a newer connection', revokedAt: row.createdAt, updatedAt: row.createdAt })
          .where(and(eq(hostConnections.sessionId, row.sessionId), eq(hostConnections.host, row.host), eq(hostConnections.status, 'active')))
          .returning();
        await tx.insert(hostConnections).values(row);
        return replaced;
      });
    } catch (e) {
      // Another consent of the same session committed first (host_connections_active_uq): replace that one instead.
      if (attempt >= 2 || !isUniqueViolation(e)) throw e;
    }
  }
}

/** The session's connections, the active one first, then newest first. */
export async function listConnections(ctx: Ctx, sessionId: string): Promise<ConnectionView[]> {
  requirePublishing(ctx);
  const rows = await ctx.db
    .select()
    .from(hostConnections)
    .where(eq(hostConnections.sessionId, sessionId))
    .orderBy(sql`(${hostConnections.status} = 'active') desc`, desc(hostConnections.createdAt));
  return rows.map(connectionView);
}

/** Disconnects: revoked at the host (best effort), then `revoked` here. Another session's connection is a 404; a revoked one stays revoked. */
export async function revokeConnection(ctx: Ctx, sessionId: string, id: string): Promise<void> {
  requirePublishing(ctx);
  const [row] = await ctx.db
    .select()
    .from(hostConnections)
    .where(and(eq(hostConnections.id, id), eq(hostConnections.sessionId, sessionId)))
    .limit(1);
  if (!row) throw new AppError('not_found', `connection ${id} not found`);
  if (row.status === 'revoked') return;
  await revokeAtHost(ctx, row);
  const now = ctx.clock.now();
  await ctx.db
    .update(hostConnections)
    .set({ ...REVOKED, statusReason: 'disconnected by the caller', revokedAt: now, updatedAt: now })
    .where(eq(hostConnections.id, id));
}

/** The session's active video host connection, or null. */
export async function activeConnectionOf(ctx: Ctx, sessionId: string): Promise<HostConnectionRow | null> {
  const [row] = await ctx.db
    .select()
    .from(hostConnections)
    .where(and(eq(hostConnections.sessionId, sessionId), eq(hostConnections.host, VIDEO_HOST), eq(hostConnections.status, 'active')))
    .limit(1);
  return row ?? null;
}

/**
 * A usable access token of an active connection: the stored one while it has more than a minute
 * left (unless `forceRefresh`, e.g. after the host answered 401), else a refreshed one, persisted.
 * A grant the host refuses (`invalid_grant`: the user revoked it there, or it expired) makes the
 * connection `revoked` (REVOKED_AT_HOST) and throws ReconnectRequiredError; a host that cannot be
 * reached throws AppError `unavailable` (retryable).
 */
export async function accessTokenFor(ctx: Ctx, connectionId: string, opts: { forceRefresh?: boolean } = {}): Promise<string> {
  const settings = requirePublishing(ctx);
  const cipher = tokenCipherOf(ctx.config);
  const [row] = await ctx.db.select().from(hostConnections).where(eq(hostConnections.id, connectionId)).limit(1);
  if (!row) throw new AppError('not_found', `connection ${connectionId} not found`);
  if (row.status !== 'active') throw new ReconnectRequiredError(row.id, `is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}`);
  const refreshToken = await openOrInvalidate(ctx, row, row.refreshTokenEnc);
  const stale = cipher.isStale(row.refreshTokenEnc);
  const now = ctx.clock.now();
  if (!opts.forceRefresh && row.accessTokenEnc && row.accessExpiresAt && row.accessExpiresAt.getTime() - now.getTime() > REFRESH_MARGIN_MS) {
    const access = await openOrInvalidate(ctx, row, row.accessTokenEnc);
    // Rotation: tokens sealed under an old key are re-sealed under the current one when used.
    if (stale || cipher.isStale(row.accessTokenEnc)) {
      await ctx.db
        .update(hostConnections)
        .set({ refreshTokenEnc: cipher.seal(refreshToken), accessTokenEnc: cipher.seal(access), updatedAt: now })
        .where(and(eq(hostConnections.id, row.id), eq(hostConnections.status, 'active')));
    }
    return access;
  }
  let grant: Awaited<ReturnType<ReturnType<typeof hostOAuth>['refresh']>>;
  try {
    grant = await hostOAuth(settings).refresh(refreshToken);
  } catch (e) {
    if (e instanceof GrantInvalidError) {
      ctx.logger.warn(
        { connection_id: row.id, description: e.description },
        'the video host refused a refresh token (invalid_grant): the connection is revoked',
      );
      await markRevokedAtHost(ctx, row.id);
      throw new ReconnectRequiredError(row.id, 'was revoked at the video host (or its grant expired there)');
    }
    throw refusal(ctx, e, 'refresh the access token');
  }
  const done = ctx.clock.now();
  const [updated] = await ctx.db
    .update(hostConnections)
    .set({
      accessTokenEnc: cipher.seal(grant.accessToken),
      accessExpiresAt: grant.expiresInMs === null ? null : addMs(done, grant.expiresInMs),
      // Hosts that rotate refresh tokens send a new one; others keep the old (re-sealed if its key is old).
      ...(grant.refreshToken || stale ? { refreshTokenEnc: cipher.seal(grant.refreshToken ?? refreshToken) } : {}),
      updatedAt: done,
    })
    .where(and(eq(hostConnections.id, row.id), eq(hostConnections.status, 'active')))
    .returning({ id: hostConnections.id });
  if (!updated) throw new ReconnectRequiredError(row.id, 'was disconnected meanwhile');
  return grant.accessToken;
}

/** Opens a sealed token of the row; one no configured key opens (a lost key) makes the connection invalid. */
async function openOrInvalidate(ctx: Ctx, row: HostConnectionRow, sealed: string): Promise<string> {
  try {
    return tokenCipherOf(ctx.config).open(sealed);
  } catch (e) {
    if (!(e instanceof TokenSealError)) throw e;
    ctx.logger.error({ connection_id: row.id, reason: e.message }, 'a stored video host token cannot be opened with the configured keys');
    await markInvalid(ctx, row.id, 'its stored tokens cannot be decrypted with the configured TOKEN_ENCRYPTION_KEY');
    throw new ReconnectRequiredError(row.id, 'can no longer be used by this server');
  }
}

/** What every way out of `active` clears: the access token, and the revoke link (useless once the connection is no longer active). */
const REVOKED = { status: 'revoked', accessTokenEnc: null, revokeTokenHash: null } as const;

/** This server can no longer use the connection (its tokens cannot be opened): `invalid`, connect again. */
async function markInvalid(ctx: Ctx, id: string, reason: string): Promise<void> {
  await ctx.db
    .update(hostConnections)
    .set({ status: 'invalid', statusReason: reason.slice(0, 300), accessTokenEnc: null, revokeTokenHash: null, updatedAt: ctx.clock.now() })
    .where(and(eq(hostConnections.id, id), eq(hostConnections.status, 'active')));
}

/** The host refused the grant: it was revoked there (or expired), so it is revoked here. */
async function markRevokedAtHost(ctx: Ctx, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .update(hostConnections)
    .set({ ...REVOKED, statusReason: REVOKED_AT_HOST, revokedAt: now, updatedAt: now })
    .where(and(eq(hostConnections.id, id), eq(hostConnections.status, 'active')));
}

/** The connection revoked here by its one-time link (revoke-links.ts): the link burned in the same statement. */
export async function revokeByLinkHash(ctx: Ctx, tokenHash: string): Promise<HostConnectionRow | null> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(hostConnections)
    .set({ ...REVOKED, statusReason: 'disconnected from the consent page', revokedAt: now, updatedAt: now })
    .where(and(eq(hostConnections.revokeTokenHash, tokenHash), eq(hostConnections.status, 'active')))
    .returning();
  return row ?? null;
}

/** Best effort: the grant of a connection revoked at the host; a failure is logged (status only) and ignored. */
export async function revokeAtHost(ctx: Ctx, row: HostConnectionRow): Promise<void> {
  try {
    await hostOAuth(requirePublishing(ctx)).revoke(tokenCipherOf(ctx.config).open(row.refreshTokenEnc));
  } catch (e) {
    ctx.logger.warn(
      { connection_id: row.id, status: e instanceof HostCallError ? e.status : null, error: e instanceof Error ? e.name : 'unknown' },
      'revoking at the video host failed',
    );
  }
}

/**
 * A failed host call as the caller's error: a refused code is a 400; an unreachable host, or one
 * that refuses this server's client (the operator's to fix, so logged), a retryable 503. Anything
 * else (the database) is thrown as it is.
 */
function refusal(ctx: Ctx, e: unknown, what: string): unknown {
  if (e instanceof GrantInvalidError)
    return new AppError('invalid_request', 'the video host refused the authorization code (expired or already used): make a new connection request');
  if (!(e instanceof HostCallError)) return e;
  if (!e.retryable)
    ctx.logger.error({ status: e.status, oauth_error: e.oauthError }, `video host refused to ${what}: check VIDEO_HOST_CLIENT_ID, _SECRET and _REDIRECT_URL`);
  return new AppError('unavailable', `the video host could not ${what} right now (${e.message}); try again shortly`);
}
