import { isUniqueViolation } from '../db/pg-errors.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { VideoHostSettings } from '../config.ts';
import type { Ctx } from '../context.ts';
import { hostConnections, oauthStates, sessions, type HostConnectionRow, type HostConnectionStatus } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { GrantInvalidError, HostCallError, hostOAuth, newPkce } from './oauth.ts';
import { TokenSealError, tokenCipherOf } from './token-crypto.ts';

export type { HostConnectionRow };

/** The one host there is; the column leaves room for others. */
export const VIDEO_HOST = 'video_host';
/** A consent request must come back within this. */
const STATE_TTL_MS = 10 * 60_000;
/** An access token this close to its expiry is refreshed first (an upload step must not start with a dying token). */
const REFRESH_MARGIN_MS = 60_000;

export interface ConnectionRequest {
  /** The host's consent page, for the caller's browser. */
  authorize_url: string;
  state: string;
  expires_at: string;
}

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

export const PUBLISHING_NOT_CONFIGURED =
  'publishing is not configured on this server: its operator enables it by setting VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET ' +
  '(the OAuth client of this deployment at the video host)';

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

/** The publishing settings, or the 400 every connection call and publish_video answer when there are none. */
export function requirePublishing(ctx: Ctx): VideoHostSettings {
  if (!ctx.config.videoHost) throw new AppError('invalid_request', PUBLISHING_NOT_CONFIGURED);
  return ctx.config.videoHost;
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

/** A consent request for the session: a fresh state and PKCE verifier (sealed), and the host's consent URL. */
export async function startConnect(ctx: Ctx, sessionId: string): Promise<ConnectionRequest> {
  const settings = requirePublishing(ctx);
  const now = ctx.clock.now();
  // Housekeeping on the way: requests abandoned over an hour ago are of no use to anyone.
  await ctx.db.delete(oauthStates).where(lt(oauthStates.expiresAt, addMs(now, -3600_000)));
  const state = randomBytes(32).toString('base64url');
  const { verifier, challenge } = await newPkce();
  const expiresAt = addMs(now, STATE_TTL_MS);
  await ctx.db.insert(oauthStates).values({ state, sessionId, codeVerifierEnc: tokenCipherOf(ctx.config).seal(verifier), createdAt: now, expiresAt });
  return { authorize_url: hostOAuth(settings).authorizeUrl(state, challenge), state, expires_at: expiresAt.toISOString() };
}

export interface ConsentAnswer {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
}

/**
 * The host's redirect after consent: the state is taken (once, unexpired), the code exchanged with
 * its verifier, and the connection stored, replacing (revoking) the session's active one.
 */
export async function finishConnect(ctx: Ctx, answer: ConsentAnswer): Promise<ConnectionView> {
  const settings = requirePublishing(ctx);
  const cipher = tokenCipherOf(ctx.config);
  const request = await takeState(ctx, answer.state);
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
  };
  const replaced = await storeReplacing(ctx, row);
  // Revoking at the host ends the whole grant of that account for this client: only an old grant of another account is revoked there.
  for (const old of replaced) {
    if (old.accountId && row.accountId && old.accountId !== row.accountId) await revokeAtHost(ctx, old);
  }
  return connectionView(row);
}

/** The state row, marked used in the same statement (a replayed callback finds it used); 400 when unknown, expired or used. */
async function takeState(ctx: Ctx, state: string) {
  const now = ctx.clock.now();
  const [taken] = await ctx.db
    .update(oauthStates)
    .set({ usedAt: now })
    .where(and(eq(oauthStates.state, state), isNull(oauthStates.usedAt), gt(oauthStates.expiresAt, now)))
    .returning();
  if (!taken) {
    const [known] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, state)).limit(1);
    const why = !known ? 'is unknown' : known.usedAt ? 'was already used' : 'expired (a consent must come back within 10 minutes)';
    throw new AppError('invalid_request', `this connection request ${why}: make a new connection request`);
  }
  const [session] = await ctx.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, taken.sessionId)).limit(1);
  if (!session || session.expiresAt <= now)
    throw new AppError('invalid_request', 'the session that made this connection request has expired: create a new session');
  return taken;
}

/** Inserts the new connection and revokes the session's active one, in one transaction; a concurrent connect is retried once. */
async function storeReplacing(ctx: Ctx, row: HostConnectionRow): Promise<HostConnectionRow[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const replaced = await tx
          .update(hostConnections)
          .set({ status: 'revoked', statusReason: 'replaced by a newer connection', revokedAt: row.createdAt, updatedAt: row.createdAt, accessTokenEnc: null })
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
    .set({ status: 'revoked', statusReason: 'disconnected by the caller', revokedAt: now, updatedAt: now, accessTokenEnc: null })
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
 * A grant the host refuses (revoked, expired) makes the connection `invalid` and throws
 * ReconnectRequiredError; a host that cannot be reached throws AppError `unavailable` (retryable).
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
      await markInvalid(ctx, row.id, `the host refused the refresh token (invalid_grant${e.description ? `: ${e.description}` : ''})`);
      throw new ReconnectRequiredError(row.id, 'was revoked or has expired at the video host');
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

async function markInvalid(ctx: Ctx, id: string, reason: string): Promise<void> {
  await ctx.db
    .update(hostConnections)
    .set({ status: 'invalid', statusReason: reason.slice(0, 300), accessTokenEnc: null, updatedAt: ctx.clock.now() })
    .where(and(eq(hostConnections.id, id), eq(hostConnections.status, 'active')));
}

/** Best effort: the grant of a connection revoked at the host; a failure is logged (status only) and ignored. */
async function revokeAtHost(ctx: Ctx, row: HostConnectionRow): Promise<void> {
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
