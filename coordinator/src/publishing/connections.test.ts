import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostConnections, oauthStates } from '../db/schema.ts';
import { createSessionCall } from '../service/index.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { startOAuthHost, type OAuthHost } from '../testing/oauth-host.ts';
import {
  accessTokenFor,
  activeConnectionOf,
  finishConnect,
  listConnections,
  ReconnectRequiredError,
  revokeConnection,
  startConnect,
  type ConnectionView,
} from './connections.ts';
import { createTokenCipher, keyId } from './token-crypto.ts';

describe('video host connections (engine, PGlite, a real token endpoint)', () => {
  let host: OAuthHost;
  let ctx: EngineCtx;
  const newSession = async () => (await createSessionCall(ctx)).session_id;
  const connect = async (sessionId: string, user = 'alice'): Promise<ConnectionView> => {
    const req = await startConnect(ctx, sessionId);
    return finishConnect(ctx, host.consent(req.authorize_url, user));
  };
  const row = async (id: string) => (await ctx.db.select().from(hostConnections).where(eq(hostConnections.id, id)))[0]!;
  const env = () => host.env;

  beforeAll(async () => {
    host = await startOAuthHost();
  });
  beforeEach(async () => {
    await ctx?.close();
    ctx = await createEngineCtx(env());
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
        () => finishConnect(bare, { state: 'x', code: 'y' }),
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

  it('starts a consent request with PKCE S256, offline access and a sealed verifier that expires in 10 minutes', async () => {
    const sessionId = await newSession();
    const r = await startConnect(ctx, sessionId);
    const u = new URL(r.authorize_url);
    expect(`${u.origin}${u.pathname}`).toBe(`${host.url}/auth`);
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      client_id: 'client-1',
      redirect_uri: 'http://127.0.0.1:8080/api/v1/connections/video-host/callback',
      response_type: 'code',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.force-ssl',
      state: r.state,
      code_challenge_method: 'S256',
    });
    expect(u.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(r.state, 'base64url')).toHaveLength(32);
    expect(new Date(r.expires_at).getTime() - ctx.clock.now().getTime()).toBe(600_000);
    const [stored] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, r.state));
    expect(stored!.codeVerifierEnc).toMatch(/^v1\.[0-9a-f]{8}\./);
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
    const req = await startConnect(ctx, sessionId);
    const answer = host.consent(req.authorize_url);
    await finishConnect(ctx, answer);
    await expect(finishConnect(ctx, answer)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/already used/) });
    await expect(finishConnect(ctx, { state: randomBytes(32).toString('base64url'), code: 'x' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/unknown/),
    });
    const late = await startConnect(ctx, sessionId);
    ctx.clock.advance(601_000);
    await expect(finishConnect(ctx, host.consent(late.authorize_url))).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/expired/) });
    const denied = await startConnect(ctx, sessionId);
    await expect(finishConnect(ctx, { state: denied.state, error: 'access_denied' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/consent was denied/),
    });
    // A code the host refuses (here: exchanged with another request's verifier) is a 400 too.
    const a = await startConnect(ctx, sessionId);
    const b = await startConnect(ctx, sessionId);
    await expect(finishConnect(ctx, { state: b.state, code: host.consent(a.authorize_url).code })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/refused the authorization code/),
    });
    // A grant without every scope asked for is refused.
    const partial = await startConnect(ctx, sessionId);
    await expect(finishConnect(ctx, host.consent(partial.authorize_url, 'alice', 'https://www.googleapis.com/auth/youtube.upload'))).rejects.toMatchObject({
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

  it('a refresh token the host refuses makes the connection invalid with a reconnect error', async () => {
    const sessionId = await newSession();
    const { id } = await connect(sessionId);
    for (const r of host.refresh.values()) r.revoked = true;
    const err = await accessTokenFor(ctx, id, { forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconnectRequiredError);
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/connect the account again/) });
    expect(await row(id)).toMatchObject({ status: 'invalid', statusReason: expect.stringMatching(/invalid_grant/), accessTokenEnc: null });
    await expect(accessTokenFor(ctx, id)).rejects.toThrow(/is invalid.*connect the account again/);
    expect(await activeConnectionOf(ctx, sessionId)).toBeNull();
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
