import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { oauthStates, sessions, type OAuthStateRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken, safeEqual } from '../lib/tokens.ts';
import { hostOAuth, newPkce } from './oauth.ts';
import { requirePublishing } from './publishing-settings.ts';
import { sessionLabel } from './session-label.ts';
import { tokenCipherOf } from './token-crypto.ts';

/**
 * Consent requests, bound to the browser that asked for them (issue 23 item 4).
 *
 * The attack this stops: an attacker's consent link, approved by a victim, used to connect the
 * victim's channel to the attacker's session. Now a request's `authorize_url` is our start page,
 * which names the session; the first browser that presses its Continue button binds the request
 * (a random nonce in an HttpOnly cookie, only its SHA-256 kept here) and only then gets the host's
 * consent URL (a fresh PKCE pair each press). The callback is honoured only with that cookie:
 * a host link forwarded to anyone else, once approved, comes back to a browser without it and
 * is refused before the code is exchanged, and the request is burned.
 *
 * The browser side (the cookie itself) is the HTTP layer's: here a browser is a `BrowserNonces`,
 * the nonce it holds for a request, looked up by the request's state.
 */

/** A consent request must come back within this. */
export const STATE_TTL_MS = 10 * 60_000;

/** The nonce a browser holds for a request (its consent cookie for that request's state), or null. */
export type BrowserNonces = (state: string) => string | null;

export interface ConnectionRequest {
  /** Our start page for this request: the caller opens it in the browser its user consents in. */
  authorize_url: string;
  expires_at: string;
  /** The session as our pages name it ("session <label>"). */
  session_label: string;
}

/** What the start page shows. */
export interface ConsentRequestView {
  requestId: string;
  sessionLabel: string;
  sessionCreatedAt: Date;
  expiresAt: Date;
}

/** A browser's binding: the host URL to send it to, and the cookie it must hold (its nonce, for this state, for the request's remaining life). */
export interface ConsentBinding {
  hostUrl: string;
  state: string;
  nonce: string;
  expiresAt: Date;
}

const invalid = (message: string) => new AppError('invalid_request', message);
const ALREADY_BOUND =
  'this connection request was already opened in another browser: make a new one (only the browser that first pressed Continue can finish it)';

/** A consent request for the session; nothing of the host's yet (no URL exists before a browser is bound). */
export async function startConnect(ctx: Ctx, sessionId: string): Promise<ConnectionRequest> {
  const settings = requirePublishing(ctx);
  const now = ctx.clock.now();
  // Housekeeping on the way: requests abandoned over an hour ago are of no use to anyone.
  await ctx.db.delete(oauthStates).where(lt(oauthStates.expiresAt, addMs(now, -3600_000)));
  const state = randomBytes(32).toString('base64url');
  const requestId = randomBytes(24).toString('base64url');
  const expiresAt = addMs(now, STATE_TTL_MS);
  await ctx.db.insert(oauthStates).values({ state, requestId, sessionId, createdAt: now, expiresAt });
  return {
    authorize_url: `${settings.startUrl}?request=${requestId}`,
    expires_at: expiresAt.toISOString(),
    session_label: sessionLabel(sessionId),
  };
}

/** The request a start page shows: 400 when unknown, used, expired, of an expired session, or bound to another browser. */
export async function showConsentRequest(ctx: Ctx, requestId: string, browser: BrowserNonces): Promise<ConsentRequestView> {
  requirePublishing(ctx);
  const { row, sessionCreatedAt } = await openRequest(ctx, requestId);
  if (row.browserHash && !holds(browser, row)) throw invalid(ALREADY_BOUND);
  return { requestId: row.requestId, sessionLabel: sessionLabel(row.sessionId), sessionCreatedAt, expiresAt: row.expiresAt };
}

/**
 * Continue pressed: binds the request to this browser the first time (a fresh nonce), or finds it
 * bound to this very browser (its nonce again); any other browser is refused. Each press makes a
 * new PKCE pair, so only the host URL answered last can complete.
 */
export async function bindConsentRequest(ctx: Ctx, requestId: string, browser: BrowserNonces): Promise<ConsentBinding> {
  const settings = requirePublishing(ctx);
  const { row } = await openRequest(ctx, requestId);
  const now = ctx.clock.now();
  let nonce: string;
  let bound: boolean;
  const { verifier, challenge } = await newPkce();
  const codeVerifierEnc = tokenCipherOf(ctx.config).seal(verifier);
  const open = and(eq(oauthStates.requestId, row.requestId), isNull(oauthStates.usedAt), gt(oauthStates.expiresAt, now));
  if (row.browserHash === null) {
    nonce = randomBytes(32).toString('base64url');
    // First come: a concurrent press in another browser that bound it first leaves nothing to update here.
    const taken = await ctx.db
      .update(oauthStates)
      .set({ browserHash: hashToken(nonce), boundAt: now, codeVerifierEnc })
      .where(and(open, isNull(oauthStates.browserHash)))
      .returning({ state: oauthStates.state });
    bound = taken.length === 1;
  } else {
    if (!holds(browser, row)) throw invalid(ALREADY_BOUND);
    nonce = browser(row.state)!;
    const again = await ctx.db
      .update(oauthStates)
      .set({ codeVerifierEnc })
      .where(and(open, eq(oauthStates.browserHash, row.browserHash)))
      .returning({ state: oauthStates.state });
    bound = again.length === 1;
  }
  if (!bound) throw invalid(ALREADY_BOUND);
  return { hostUrl: hostOAuth(settings).authorizeUrl(row.state, challenge), state: row.state, nonce, expiresAt: row.expiresAt };
}

/**
 * The callback's request: taken (marked used in the same statement, so a replay finds it used),
 * then checked against the browser. A browser that does not hold the binding's nonce is refused
 * after the take: the request is burned and its code is never exchanged. 400 when unknown,
 * expired, used, unbound or bound elsewhere, or when its session expired.
 */
export async function takeConsentState(ctx: Ctx, state: string, browser: BrowserNonces): Promise<OAuthStateRow & { codeVerifierEnc: string }> {
  const now = ctx.clock.now();
  const [taken] = await ctx.db
    .update(oauthStates)
    .set({ usedAt: now })
    .where(and(eq(oauthStates.state, state), isNull(oauthStates.usedAt), gt(oauthStates.expiresAt, now)))
    .returning();
  if (!taken) {
    const [known] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, state)).limit(1);
    throw invalid(`this connection request ${whyNot(known)}: make a new connection request`);
  }
  if (!taken.codeVerifierEnc || !holds(browser, taken))
    throw invalid(
      'this consent was not started in this browser: nothing was connected. A connection request finishes only in the browser that opened its ' +
        'link (authorize_url) and pressed Continue there; make a new connection request and open its link in the browser you consent in',
    );
  const [session] = await ctx.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, taken.sessionId)).limit(1);
  if (!session || session.expiresAt <= now) throw invalid('the session that made this connection request has expired: create a new session');
  return { ...taken, codeVerifierEnc: taken.codeVerifierEnc };
}

/** An open request by its id, with its session's creation time; 400 naming why it cannot be used. */
async function openRequest(ctx: Ctx, requestId: string): Promise<{ row: OAuthStateRow; sessionCreatedAt: Date }> {
  const now = ctx.clock.now();
  const [found] = await ctx.db
    .select({ row: oauthStates, session: { createdAt: sessions.createdAt, expiresAt: sessions.expiresAt } })
    .from(oauthStates)
    .leftJoin(sessions, eq(sessions.id, oauthStates.sessionId))
    .where(eq(oauthStates.requestId, requestId))
    .limit(1);
  if (!found || found.row.usedAt || found.row.expiresAt <= now) throw invalid(`this connection request ${whyNot(found?.row)}: make a new connection request`);
  if (!found.session || found.session.expiresAt <= now) throw invalid('the session that made this connection request has expired: create a new session');
  return { row: found.row, sessionCreatedAt: found.session.createdAt };
}

const whyNot = (row: OAuthStateRow | undefined) =>
  !row ? 'is unknown' : row.usedAt ? 'was already used' : `expired (a consent must come back within ${STATE_TTL_MS / 60_000} minutes)`;

/** Whether the browser holds the nonce the request is bound to (hashes compared in constant time). */
function holds(browser: BrowserNonces, row: OAuthStateRow): boolean {
  const nonce = browser(row.state);
  return Boolean(row.browserHash && nonce && safeEqual(hashToken(nonce), row.browserHash));
}
