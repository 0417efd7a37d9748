import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostConnections, oauthStates } from '../db/schema.ts';
import { createSessionCall } from '../service/index.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { startOAuthHost, type OAuthHost } from '../testing/oauth-host.ts';
import { bindConsentRequest, startConnect, type BrowserNonces, type ConnectionRequest } from './consent-requests.ts';
import {
  accessTokenFor,
  activeConnectionOf,
  finishConnect,
  listConnections,
  ReconnectRequiredError,
  revokeConnection,
  type ConnectionView,
} from './connections.ts';
import { showRevokeLink, useRevokeLink } from './revoke-links.ts';
import { createTokenCipher, keyId } from './token-crypto.ts';

/** A browser without any consent cookie. */
const noCookie: BrowserNonces = () => null;
const requestIdOf = (r: ConnectionRequest) => new URL(r.authorize_url).searchParams.get('request')!;

describe('video host connections (engine, PGlite, a real token endpoint)', () => {
  let host: OAuthHost;
  let ctx: EngineCtx;
  const newSession = async () => (await createSessionCall(ctx)).session_id;
  /** A request opened and Continue pressed in one browser: the host URL, and that browser (its cookie). */
  const bind = async (sessionId: string) => {
    const binding = await bindConsentRequest(ctx, requestIdOf(await startConnect(ctx, sessionId)), noCookie);
    const browser: BrowserNonces = (state) => (state === binding.state ? binding.nonce : null);
    return { ...binding, browser };
  };
  const connectFull = async (sessionId: string, user = 'alice') => {
    const b = await bind(sessionId);
    return finishConnect(ctx, host.consent(b.hostUrl, user), b.browser);
  };
  const connect = async (sessionId: string, user = 'alice'): Promise<ConnectionView> => (await connectFull(sessionId, user)).connection;
  const row = async (id: string) => (await ctx.db.select().from(hostConnections).where(eq(hostConnections.id, id)))[0]!;
  const env = () => host.env;

  beforeAll(async () => {
    host = await startOAuthHost();
    ctx = await createEngineCtx(env());
  });
  // Each test starts from an empty database, blob store and clock (one context, reset: 13 new ones took ~8 s).
  beforeEach(async () => {
    await ctx.reset();
  });
  afterAll(async () => {
    await ctx?.close();
    await host.stop();
  });

  it('refuses every call with the documented 400 when publishing is not configured', async () => {
    const bare = await createEngineCtx();
    try {
      const sessionId = (await createSessionCall(bare)).session_id;
      for (const call of [
        () => startConnect(bare, sessionId),
        () => bindConsentRequest(bare, 'x', noCookie),
        () => finishConnect(bare, { state: 'x', code: 'y' }, noCookie),
        () => listConnections(bare, sessionId),
        () => accessTokenFor(bare, crypto.randomUUID()),
      ]) {
        await expect(call()).rejects.toMatchObject({
          status: 400,
          message: expect.stringMatching(/publishing is not configured.*VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET/),
        });
      }
    } finally {
      await bare.close();
    }
  });

  it('starts a consent request: our start URL, and the host URL (PKCE S256, offline access, a sealed verifier) only once a browser is bound', async () => {
    const sessionId = await newSession();
    const r = await startConnect(ctx, sessionId);
    expect(r.authorize_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/api\/v1\/connections\/video-host\/start\?request=[A-Za-z0-9_-]{32}$/);
    expect(r.session_label).toBe(sessionId.slice(0, 8));
    expect(new Date(r.expires_at).getTime() - ctx.clock.now().getTime()).toBe(600_000);
    const [unbound] = await ctx.db
      .select()
      .from(oauthStates)
      .where(eq(oauthStates.requestId, requestIdOf(r)));
    expect(unbound).toMatchObject({ codeVerifierEnc: null, browserHash: null, boundAt: null });
    const b = await bindConsentRequest(ctx, requestIdOf(r), noCookie);
    const u = new URL(b.hostUrl);
    expect(`${u.origin}${u.pathname}`).toBe(`${host.url}/auth`);
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      client_id: 'client-1',
      redirect_uri: 'http://127.0.0.1:8080/api/v1/connections/video-host/callback',
      response_type: 'code',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.force-ssl',
      state: unbound!.state,
      code_challenge_method: 'S256',
    });
    expect(u.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(b.state, 'base64url')).toHaveLength(32);
    expect(Buffer.from(b.nonce, 'base64url')).toHaveLength(32);
    const [stored] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, b.state));
    expect(stored!.codeVerifierEnc).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(stored!.browserHash).toBe(createHash('sha256').update(b.nonce).digest('hex'));
    expect(stored!.boundAt).toEqual(ctx.clock.now());
  });

  it('binds a request to the first browser that presses Continue: the same browser may press again, no other', async () => {
    const sessionId = await newSession();
    const r = await startConnect(ctx, sessionId);
    const first = await bindConsentRequest(ctx, requestIdOf(r), noCookie);
    const same: BrowserNonces = (state) => (state === first.state ? first.nonce : null);
    const again = await bindConsentRequest(ctx, requestIdOf(r), same);
    expect(again.nonce).toBe(first.nonce);
    expect(new URL(again.hostUrl).searchParams.get('code_challenge')).not.toBe(new URL(first.hostUrl).searchParams.get('code_challenge'));
    for (const other of [noCookie, () => 'another-nonce', () => first.nonce.slice(1)]) {
      await expect(bindConsentRequest(ctx, requestIdOf(r), other)).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/already opened in another browser/),
      });
    }
    // Another request's cookie in the same browser is no key to this one.
    const r2 = await startConnect(ctx, sessionId);
    const b2 = await bindConsentRequest(ctx, requestIdOf(r2), noCookie);
    await expect(bindConsentRequest(ctx, requestIdOf(r), () => b2.nonce)).rejects.toMatchObject({ status: 400 });
    await expect(bindConsentRequest(ctx, 'unknown', noCookie)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/is unknown/) });
  });

  it('finishes only in the bound browser: any other is refused after the state is burned, and the code is never exchanged', async () => {
    const sessionId = await newSession();
    const exchanges = () => host.calls.filter((c) => c === 'POST /token authorization_code').length;
    const before = exchanges();
    const b = await bind(sessionId);
    const answer = host.consent(b.hostUrl, 'victim');
    for (const browser of [noCookie, () => 'forged', () => b.nonce.toUpperCase()]) {
      const b2 = await bind(sessionId);
      const err = await finishConnect(ctx, host.consent(b2.hostUrl, 'victim'), browser).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/not started in this browser: nothing was connected/) });
      const [burned] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, b2.state));
      expect(burned!.usedAt).not.toBeNull();
      // Burned: not even the bound browser can finish it afterwards.
      await expect(finishConnect(ctx, host.consent(b2.hostUrl, 'victim'), b2.browser)).rejects.toMatchObject({
        message: expect.stringMatching(/already used/),
      });
    }
    expect(exchanges()).toBe(before);
    // A request never bound (no host URL was made for it) cannot be finished either.
    const unbound = await startConnect(ctx, sessionId);
    const [row] = await ctx.db
      .select()
      .from(oauthStates)
      .where(eq(oauthStates.requestId, requestIdOf(unbound)));
    await expect(finishConnect(ctx, { state: row!.state, code: 'x' }, () => 'x')).rejects.toMatchObject({
      message: expect.stringMatching(/not started in this browser/),
    });
    expect(exchanges()).toBe(before);
    expect(await listConnections(ctx, sessionId)).toEqual([]);
    // The bound browser connects.
    expect((await finishConnect(ctx, answer, b.browser)).connection).toMatchObject({ account_id: 'UCvictim', status: 'active' });
    expect(exchanges()).toBe(before + 1);
  });

  it('connects: tokens sealed at rest, the channel from channels.list, nothing secret in the view', async () => {
    const sessionId = await newSession();
    const view = await connect(sessionId);
    expect(view).toMatchObject({
      host: 'video_host',
      account_id: 'UCalice',
      account_title: 'Channel alice',
      status: 'active',
      status_reason: null,
      revoked_at: null,
    });
    expect(view.scopes).toEqual(['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.force-ssl']);
    expect(JSON.stringify(view)).not.toMatch(/ya29\.|1\/\/|token/i);
    const r = await row(view.id);
    const [refreshToken] = [...host.refresh.keys()].slice(-1);
    expect(r.refreshTokenEnc).not.toContain(refreshToken);
    expect(r.refreshTokenEnc).toMatch(/^v1\./);
    expect(r.accessTokenEnc).toMatch(/^v1\./);
    expect(r.accessExpiresAt!.getTime() - ctx.clock.now().getTime()).toBeGreaterThan(3_500_000);
    expect((await activeConnectionOf(ctx, sessionId))?.id).toBe(view.id);
    expect(await listConnections(ctx, sessionId)).toEqual([view]);
    expect(await listConnections(ctx, await newSession())).toEqual([]);
  });

  it('takes a state once: replayed, unknown, expired or denied is a 400 naming why', async () => {
    const sessionId = await newSession();
    const b = await bind(sessionId);
    const answer = host.consent(b.hostUrl);
    await finishConnect(ctx, answer, b.browser);
    await expect(finishConnect(ctx, answer, b.browser)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/already used/) });
    await expect(finishConnect(ctx, { state: randomBytes(32).toString('base64url'), code: 'x' }, b.browser)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/unknown/),
    });
    const late = await bind(sessionId);
    const lateStart = await startConnect(ctx, sessionId);
    ctx.clock.advance(601_000);
    await expect(finishConnect(ctx, host.consent(late.hostUrl), late.browser)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/expired/),
    });
    await expect(bindConsentRequest(ctx, requestIdOf(lateStart), noCookie)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/expired/) });
    const denied = await bind(sessionId);
    await expect(finishConnect(ctx, { state: denied.state, error: 'access_denied' }, denied.browser)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/consent was denied/),
    });
    // A code the host refuses (here: exchanged with another request's verifier) is a 400 too.
    const x = await bind(sessionId);
    const y = await bind(sessionId);
    await expect(finishConnect(ctx, { state: y.state, code: host.consent(x.hostUrl).code }, y.browser)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/refused the authorization code/),
    });
    // A grant without every scope asked for is refused.
    const partial = await bind(sessionId);
    await expect(
      finishConnect(ctx, host.consent(partial.hostUrl, 'alice', 'https://www.googleapis.com/auth/youtube.upload'), partial.browser),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/did not grant https:\/\/www.googleapis.com\/auth\/youtube.force-ssl/),
    });
  });

  it('a new connection replaces the session’s active one', async () => {
    const revokes = () => host.calls.filter((c) => c.startsWith('POST /revoke')).length;
    const before = revokes();
    const sessionId = await newSession();
    const first = await connect(sessionId, 'alice');
    const second = await connect(sessionId, 'alice');
    const list = await listConnections(ctx, sessionId);
    expect(list.map((c) => [c.id, c.status])).toEqual([
      [second.id, 'active'],
      [first.id, 'revoked'],
    ]);
    expect(list[1]!.status_reason).toMatch(/replaced/);
    // Same account: its grant at the host is not revoked (that would end the new one too).
    expect(revokes()).toBe(before);
    // Another account: the old account's grant is revoked at the host.
    await connect(sessionId, 'bob');
    expect(revokes()).toBe(before + 1);
    await expect(accessTokenFor(ctx, second.id)).rejects.toBeInstanceOf(ReconnectRequiredError);
  });

  it('hands out the stored access token, refreshes it within 60 s of expiry or when forced, and persists it', async () => {
    const sessionId = await newSession();
    const { id } = await connect(sessionId);
    const counted = host.calls.filter((c) => c.endsWith('refresh_token')).length;
    const refreshes = () => host.calls.filter((c) => c.endsWith('refresh_token')).length - counted;
    const first = await accessTokenFor(ctx, id);
    expect(first).toMatch(/^ya29\./);
    expect(await accessTokenFor(ctx, id)).toBe(first);
    expect(refreshes()).toBe(0);
    ctx.clock.advance(3_599_000 - 59_000);
    const second = await accessTokenFor(ctx, id);
    expect(second).not.toBe(first);
    expect(refreshes()).toBe(1);
    expect(await accessTokenFor(ctx, id)).toBe(second);
    const forced = await accessTokenFor(ctx, id, { forceRefresh: true });
    expect(forced).not.toBe(second);
    expect(refreshes()).toBe(2);
    expect((await row(id)).accessExpiresAt!.getTime()).toBeGreaterThan(ctx.clock.now().getTime() + 3_500_000);
  });

  it('a grant revoked at the host is revoked here: the connection reads revoked, with a reconnect error', async () => {
    const sessionId = await newSession();
    const { connection, revoke_url } = await connectFull(sessionId);
    const id = connection.id;
    for (const r of host.refresh.values()) r.revoked = true;
    const err = await accessTokenFor(ctx, id, { forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconnectRequiredError);
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/was revoked at the video host.*connect the account again/) });
    expect(await row(id)).toMatchObject({
      status: 'revoked',
      statusReason: 'revoked at the video host',
      revokedAt: ctx.clock.now(),
      accessTokenEnc: null,
      revokeTokenHash: null,
    });
    await expect(accessTokenFor(ctx, id)).rejects.toThrow(/is revoked \(revoked at the video host\).*connect the account again/);
    expect(await activeConnectionOf(ctx, sessionId)).toBeNull();
    expect((await listConnections(ctx, sessionId))[0]).toMatchObject({ status: 'revoked', status_reason: 'revoked at the video host' });
    // Its revoke link has nothing left to do.
    await expect(showRevokeLink(ctx, new URL(revoke_url).searchParams.get('token')!)).rejects.toMatchObject({ status: 400 });
  });

  it('the revoke link: stored as a hash, shown without revoking, used once; every other way out of active kills it', async () => {
    const sessionId = await newSession();
    const first = await connectFull(sessionId);
    const token = new URL(first.revoke_url).searchParams.get('token')!;
    expect(first.session_label).toBe(sessionId.slice(0, 8));
    expect((await row(first.connection.id)).revokeTokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(await showRevokeLink(ctx, token)).toMatchObject({ connection: { id: first.connection.id, status: 'active' }, session_label: first.session_label });
    expect((await row(first.connection.id)).status).toBe('active');
    const used = await useRevokeLink(ctx, token);
    expect(used.connection).toMatchObject({ status: 'revoked', status_reason: 'disconnected from the consent page' });
    expect([...host.refresh.values()].at(-1)!.revoked).toBe(true);
    expect(await row(first.connection.id)).toMatchObject({ revokeTokenHash: null, accessTokenEnc: null });
    await expect(useRevokeLink(ctx, token)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/already used/) });
    expect(used.revoked_at_host).toBe(true);
    // The same channel held by another session too: revoked here only, since revoking the grant at the host would end that one as well.
    const revokes = () => host.calls.filter((c) => c.startsWith('POST /revoke')).length;
    const mine = await connectFull(sessionId, 'dave');
    const theirs = await connectFull(await newSession(), 'dave');
    const before = revokes();
    const shared = await useRevokeLink(ctx, new URL(mine.revoke_url).searchParams.get('token')!);
    expect(shared).toMatchObject({ revoked_at_host: false, connection: { status: 'revoked' } });
    expect(revokes()).toBe(before);
    expect(await accessTokenFor(ctx, theirs.connection.id, { forceRefresh: true })).toMatch(/^ya29\./);
    await expect(accessTokenFor(ctx, mine.connection.id)).rejects.toBeInstanceOf(ReconnectRequiredError);
    // Replaced by a newer connection, or disconnected with the session's token: the link is dead.
    const replaced = await connectFull(sessionId);
    const newer = await connectFull(sessionId);
    const deleted = newer.connection.id;
    await revokeConnection(ctx, sessionId, deleted);
    for (const c of [replaced, newer]) {
      await expect(useRevokeLink(ctx, new URL(c.revoke_url).searchParams.get('token')!)).rejects.toMatchObject({ status: 400 });
      expect((await row(c.connection.id)).revokeTokenHash).toBeNull();
    }
  });

  it('an unreachable token endpoint is a retryable 503, and the connection stays active', async () => {
    const { id } = await connect(await newSession());
    host.failNext(10);
    await expect(accessTokenFor(ctx, id, { forceRefresh: true })).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    host.failNext(0);
    expect((await row(id)).status).toBe('active');
    expect(await accessTokenFor(ctx, id, { forceRefresh: true })).toMatch(/^ya29\./);
  }, 20_000);

  it('revokes at the host and here; another session’s connection is a 404', async () => {
    const owner = await newSession();
    const { id } = await connect(owner);
    await expect(revokeConnection(ctx, await newSession(), id)).rejects.toMatchObject({ status: 404 });
    expect((await row(id)).status).toBe('active');
    await revokeConnection(ctx, owner, id);
    expect(await row(id)).toMatchObject({ status: 'revoked', statusReason: 'disconnected by the caller', accessTokenEnc: null });
    expect([...host.refresh.values()].at(-1)!.revoked).toBe(true);
    await revokeConnection(ctx, owner, id); // again: still revoked, no error
    await expect(accessTokenFor(ctx, id)).rejects.toBeInstanceOf(ReconnectRequiredError);
  });

  it('key rotation: tokens sealed under an old key are used and re-sealed under the new one', async () => {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    await ctx.close();
    ctx = await createEngineCtx({ ...env(), TOKEN_ENCRYPTION_KEY: keyA.toString('base64') });
    const { id } = await connect(await newSession());
    const before = await row(id);
    expect(before.refreshTokenEnc.split('.')[1]).toBe(keyId(keyA));
    // The next start: B is the key, A an old one.
    const rotated = { ...ctx, config: { ...ctx.config, TOKEN_ENCRYPTION_KEY: keyB.toString('base64'), TOKEN_ENCRYPTION_KEYS_OLD: keyA.toString('base64') } };
    const token = await accessTokenFor(rotated, id);
    expect(token).toBe(createTokenCipher(keyA).open(before.accessTokenEnc!));
    const after = await row(id);
    expect([after.refreshTokenEnc.split('.')[1], after.accessTokenEnc!.split('.')[1]]).toEqual([keyId(keyB), keyId(keyB)]);
    expect(createTokenCipher(keyB).open(after.refreshTokenEnc)).toBe(createTokenCipher(keyA).open(before.refreshTokenEnc));
    // A server that lost the key: the connection becomes invalid rather than failing obscurely.
    const lost = { ...ctx, config: { ...ctx.config, TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64') } };
    await expect(accessTokenFor(lost, id)).rejects.toThrow(/can no longer be used by this server.*connect the account again/);
    expect((await row(id)).status).toBe('invalid');
  });
});
