import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../coordinator/src/context.ts';
import { hostConnections, oauthStates } from '../coordinator/src/db/schema.ts';
import { accessTokenFor, ReconnectRequiredError } from '../coordinator/src/publishing/connections.ts';
import { GrantInvalidError, hostOAuth } from '../coordinator/src/publishing/oauth.ts';
import { tokenCipherOf } from '../coordinator/src/publishing/token-crypto.ts';
import type { VideoHostFake } from './fakes/video-host/index.ts';
import { connectInBrowser, consentBrowser, type ConsentBrowser } from './harness/consent.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Connecting a video host account on the real stack (Postgres, the coordinator over HTTP) against
 * the stateful video host fake: the consent flow as a browser walks it (POST → authorize_url, our
 * start page → Continue → the fake's consent → the callback URL opened in the same browser), the
 * attack it must refuse (a consent link approved in another browser), the list, isolation between
 * sessions, revocation (at the fake too, and by the one-time link), reconnecting, and every way a
 * state can be wrong.
 */
describe('video host connections over REST (consent flow against the fake)', () => {
  let stack: Stack;
  let fake: VideoHostFake;
  let ctx: Ctx;
  /** Every body the API answered, to check that no token ever left the server. */
  const bodies: string[] = [];

  const call = async (method: string, path: string, token?: string) => {
    const r = await stack.api.call(method, path, { token });
    bodies.push(JSON.stringify(r.body));
    return r;
  };
  /** What a browser does: opens a URL (the callback the host redirected it to) with its own cookies. */
  const browse = async (browser: ConsentBrowser, url: string, accept?: string) => {
    const res = await browser.get(url, accept);
    bodies.push(res.body);
    return { status: res.status, type: String(res.headers['content-type'] ?? ''), body: res.body };
  };
  /** A connection request of the session walked in a browser to the host's consent page: the host URL, and that browser. */
  const toHost = async (token: string, browser = consentBrowser(stack)) => {
    const start = await call('POST', '/api/v1/connections/video-host', token);
    expect(start.status).toBe(201);
    return { hostUrl: await browser.walkToHost(start.body.connection_request.authorize_url), browser, request: start.body.connection_request };
  };
  /** POST → start page → Continue → consent at the fake → the callback in the same browser, as JSON. */
  const connect = async (token: string, consent: Parameters<VideoHostFake['consent']>[1] = {}) => {
    const cb = await connectInBrowser(stack, token, { consent });
    bodies.push(cb.body);
    return cb;
  };
  const row = async (id: string) => (await ctx.db.select().from(hostConnections).where(eq(hostConnections.id, id)))[0]!;

  beforeAll(async () => {
    stack = await startStack({ videoHost: true, agents: 0, storage: 'local' });
    fake = stack.videoHost!;
    ctx = stack.coordinator.ctx;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('connects through the consent flow, lists without token material, keeps tokens sealed at rest', async () => {
    const token = await stack.api.newSession();
    const start = await call('POST', '/api/v1/connections/video-host', token);
    expect(start.status).toBe(201);
    const { authorize_url, expires_at, session_label } = start.body.connection_request;
    expect(authorize_url).toMatch(new RegExp(`^${stack.coordinator.url}/api/v1/connections/video-host/start\\?request=[A-Za-z0-9_-]{32}$`));
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 9 * 60_000);

    // The user's browser opens the start page (naming the session) and presses Continue: on to the host.
    const browser = consentBrowser(stack);
    const startPage = await browse(browser, authorize_url);
    expect(startPage.body).toContain(`cutroom session ${session_label}`);
    const hostUrl = await browser.walkToHost(authorize_url);
    const auth = new URL(hostUrl);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${fake.url}/o/oauth2/v2/auth`);
    expect(auth.searchParams.get('redirect_uri')).toBe(`${stack.coordinator.url}/api/v1/connections/video-host/callback`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(browser.jar.size).toBe(1);

    // The user clicks Allow; the host redirects the browser to the callback with code and state.
    const redirect = new URL(fake.consent(hostUrl));
    expect(redirect.searchParams.get('state')).toBe(auth.searchParams.get('state'));
    const page = await browse(browser, redirect.toString());
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).toContain(`Fake Creator is connected to <strong>cutroom session ${session_label}</strong>`);
    expect(page.body).toMatch(/revoke\?token=/);
    expect(browser.jar.size).toBe(0);

    const list = await call('GET', '/api/v1/connections', token);
    expect(list.status).toBe(200);
    expect(list.body.connections).toEqual([
      expect.objectContaining({
        host: 'video_host',
        account_id: fake.defaultUser.id,
        account_title: 'Fake Creator',
        status: 'active',
        scopes: ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.force-ssl'],
      }),
    ]);
    const id = list.body.connections[0].id as string;
    const grant = [...fake.state.grants.values()].at(-1)!;
    expect(grant.userId).toBe(fake.defaultUser.id);
    const stored = await row(id);
    expect(stored.refreshTokenEnc).not.toContain(grant.refreshToken!);
    expect(stored.refreshTokenEnc).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(tokenCipherOf(ctx.config).open(stored.refreshTokenEnc)).toBe(grant.refreshToken);
    // The workflow's view: a usable access token the host accepts, refreshed on demand.
    const access = await accessTokenFor(ctx, id);
    expect(fake.state.accessTokens.get(access)?.grantId).toBe(grant.id);
    const refreshed = await accessTokenFor(ctx, id, { forceRefresh: true });
    expect(refreshed).not.toBe(access);
    expect(fake.state.accessTokens.get(refreshed)?.grantId).toBe(grant.id);

    // Another session sees nothing and cannot revoke it.
    const other = await stack.api.newSession();
    expect((await call('GET', '/api/v1/connections', other)).body).toEqual({ connections: [] });
    expect((await call('DELETE', `/api/v1/connections/${id}`, other)).status).toBe(404);
    expect((await row(id)).status).toBe('active');
  });

  it('revokes: the grant ends at the host, refreshing fails there, and the workflow is told to reconnect', async () => {
    const token = await stack.api.newSession();
    const { json } = await connect(token);
    const id = json.connection.id as string;
    const grant = [...fake.state.grants.values()].at(-1)!;
    const del = await call('DELETE', `/api/v1/connections/${id}`, token);
    expect([del.status, del.body]).toEqual([200, { deleted: true }]);
    expect(grant.revokedAt).not.toBeNull();
    await expect(hostOAuth(ctx.config.videoHost!).refresh(grant.refreshToken!)).rejects.toBeInstanceOf(GrantInvalidError);
    await expect(accessTokenFor(ctx, id)).rejects.toBeInstanceOf(ReconnectRequiredError);
    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections).toEqual([expect.objectContaining({ id, status: 'revoked', status_reason: 'disconnected by the caller' })]);
    expect((await call('DELETE', `/api/v1/connections/${id}`, token)).status).toBe(200);
  });

  it('a grant revoked at the host is revoked here, with a reconnect error', async () => {
    const user = fake.createUser({ title: 'Revoking Channel' });
    const token = await stack.api.newSession();
    const { json } = await connect(token, { user });
    const id = json.connection.id as string;
    // The user removes the app from their account's security page.
    expect(fake.revokeGrants({ channelId: user.id })).toBe(1);
    const err = await accessTokenFor(ctx, id, { forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconnectRequiredError);
    expect((err as Error).message).toMatch(/revoked at the video host.*connect the account again/);
    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections[0]).toMatchObject({ id, status: 'revoked', status_reason: 'revoked at the video host', revoked_at: expect.any(String) });
    // Its revoke link has nothing left to do.
    const link = await browse(consentBrowser(stack), json.revoke_url);
    expect([link.status, link.body]).toEqual([400, expect.stringMatching(/no longer active/)]);
  });

  it('the attack fails: a consent link the attacker opened, approved by a victim in their own browser, connects nothing', async () => {
    const victimChannel = fake.createUser({ title: 'Victim Channel' });
    const attackerToken = await stack.api.newSession();
    // The attacker's browser walks their own request to the host's consent page, and sends that link to the victim.
    const { hostUrl } = await toHost(attackerToken);
    const redirect = new URL(fake.consent(hostUrl, { user: victimChannel }));
    const code = fake.state.codes.get(redirect.searchParams.get('code')!)!;
    // The host sends the victim's browser back: refused, nothing exchanged, nothing connected.
    const victim = consentBrowser(stack);
    const cb = await browse(victim, redirect.toString());
    expect([cb.status, cb.type]).toEqual([400, expect.stringMatching(/^text\/html/)]);
    expect(cb.body).toMatch(/not started in this browser/);
    expect(code.usedAt).toBeNull();
    expect([...fake.state.grants.values()].filter((g) => g.userId === victimChannel.id)).toEqual([]);
    expect((await call('GET', '/api/v1/connections', attackerToken)).body).toEqual({ connections: [] });
    // Burned: the attacker cannot take the answer back to their own browser either.
    const replay = await browse(consentBrowser(stack), redirect.toString(), 'application/json');
    expect([replay.status, JSON.parse(replay.body).error]).toEqual([400, expect.stringMatching(/already used/)]);
    expect(code.usedAt).toBeNull();
    // The start link itself, once the attacker opened it, is refused in the victim's browser.
    const start = await call('POST', '/api/v1/connections/video-host', attackerToken);
    await consentBrowser(stack).walkToHost(start.body.connection_request.authorize_url);
    await expect(victim.walkToHost(start.body.connection_request.authorize_url)).rejects.toThrow(/already opened in another browser/);
    expect((await call('GET', '/api/v1/connections', attackerToken)).body).toEqual({ connections: [] });
  });

  it('the one-time revoke link on the success page disconnects here and at the host, once', async () => {
    const user = fake.createUser({ title: 'Changed Mind' });
    const token = await stack.api.newSession();
    const { json } = await connect(token, { user });
    const grant = [...fake.state.grants.values()].at(-1)!;
    const browser = consentBrowser(stack);
    const page = await browser.get(json.revoke_url);
    expect(page.status).toBe(200);
    expect(grant.revokedAt).toBeNull();
    const done = await browser.press(page, json.revoke_url);
    expect(done.res.status).toBe(200);
    expect(grant.revokedAt).not.toBeNull();
    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections[0]).toMatchObject({ id: json.connection.id, status: 'revoked', status_reason: 'disconnected from the consent page' });
    expect((await browser.press(page, json.revoke_url)).res.status).toBe(400);
  });

  it('a reconnect replaces the old connection', async () => {
    const token = await stack.api.newSession();
    const first = await connect(token);
    const second = await connect(token);
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ connected: true, connection: { status: 'active', account_id: fake.defaultUser.id } });
    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      [second.json.connection.id, 'active'],
      [first.json.connection.id, 'revoked'],
    ]);
    expect(list.body.connections[1].status_reason).toMatch(/replaced/);
    expect(await accessTokenFor(ctx, second.json.connection.id)).toBeTruthy();
    await expect(accessTokenFor(ctx, first.json.connection.id)).rejects.toBeInstanceOf(ReconnectRequiredError);
    // Another account connected in the same session: the previous account's grant is revoked at the host.
    const other = fake.createUser({ title: 'Second Channel' });
    const third = await connect(token, { user: other });
    expect(third.json.connection).toMatchObject({ account_id: other.id, account_title: 'Second Channel' });
    const secondGrant = [...fake.state.grants.values()].filter((g) => g.userId === fake.defaultUser.id).at(-1)!;
    expect(secondGrant.revokedAt).not.toBeNull();
  });

  it('refuses a forged, expired, replayed or denied state with 400, never a 500', async () => {
    const token = await stack.api.newSession();
    const cb = `${stack.coordinator.url}/api/v1/connections/video-host/callback`;
    const stranger = consentBrowser(stack);
    const forged = await browse(stranger, `${cb}?code=4%2Fforged&state=${'A'.repeat(43)}`, 'application/json');
    expect([forged.status, JSON.parse(forged.body).error]).toEqual([400, expect.stringMatching(/is unknown/)]);
    expect((await browse(stranger, `${cb}?code=x`, 'application/json')).status).toBe(400);

    // Replayed: the same callback URL opened twice in the browser that consented.
    const once = await toHost(token);
    const redirect = fake.consent(once.hostUrl);
    expect((await browse(once.browser, redirect, 'application/json')).status).toBe(200);
    const replay = await browse(once.browser, redirect, 'application/json');
    expect([replay.status, JSON.parse(replay.body).error]).toEqual([400, expect.stringMatching(/already used/)]);

    // Expired: consent that comes back after the request's 10 minutes.
    const late = await toHost(token);
    const lateRedirect = fake.consent(late.hostUrl);
    await ctx.db
      .update(oauthStates)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthStates.requestId, new URL(late.request.authorize_url).searchParams.get('request')!));
    const expired = await browse(late.browser, lateRedirect, 'application/json');
    expect([expired.status, JSON.parse(expired.body).error]).toEqual([400, expect.stringMatching(/expired/)]);

    // Denied: the user clicks Deny; a browser gets a page saying so.
    const deny = await toHost(token);
    const denied = await browse(deny.browser, fake.consent(deny.hostUrl, { deny: true }));
    expect([denied.status, denied.type]).toEqual([400, expect.stringMatching(/^text\/html/)]);
    expect(denied.body).toContain('consent was denied');

    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections).toHaveLength(1);
  });

  it('never answered a token: no refresh or access token the host issued appears in any response', () => {
    const secrets = [...[...fake.state.grants.values()].map((g) => g.refreshToken).filter((t): t is string => Boolean(t)), ...fake.state.accessTokens.keys()];
    expect(secrets.length).toBeGreaterThan(5);
    const all = bodies.join('\n');
    for (const s of secrets) expect(all.includes(s), 'a token in a response').toBe(false);
  });
});
