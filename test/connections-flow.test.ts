import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../coordinator/src/context.ts';
import { hostConnections, oauthStates } from '../coordinator/src/db/schema.ts';
import { accessTokenFor, ReconnectRequiredError } from '../coordinator/src/publishing/connections.ts';
import { GrantInvalidError, hostOAuth } from '../coordinator/src/publishing/oauth.ts';
import { tokenCipherOf } from '../coordinator/src/publishing/token-crypto.ts';
import type { VideoHostFake } from './fakes/video-host/index.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Connecting a video host account on the real stack (Postgres, the coordinator over HTTP) against
 * the stateful video host fake: the consent flow as a browser walks it (POST → authorize_url →
 * the fake's consent → the callback URL fetched), the list, isolation between sessions, revocation
 * (at the fake too), reconnecting, and every way a state can be wrong.
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
  /** What a browser does: opens the callback URL the host redirected it to. */
  const browse = async (url: string, accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8') => {
    const res = await fetch(url, { headers: { accept } });
    const body = await res.text();
    bodies.push(body);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body };
  };
  /** POST → consent at the fake → the callback, as JSON. */
  const connect = async (token: string, consent: Parameters<VideoHostFake['consent']>[1] = {}) => {
    const start = await call('POST', '/api/v1/connections/video-host', token);
    expect(start.status).toBe(201);
    const cb = await browse(fake.consent(start.body.connection_request.authorize_url, consent), 'application/json');
    return { ...cb, json: cb.type.includes('json') ? JSON.parse(cb.body) : null };
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
    const { authorize_url, state, expires_at } = start.body.connection_request;
    const auth = new URL(authorize_url);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${fake.url}/o/oauth2/v2/auth`);
    expect(auth.searchParams.get('redirect_uri')).toBe(`${stack.coordinator.url}/api/v1/connections/video-host/callback`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 9 * 60_000);

    // The user clicks Allow; the host redirects the browser to the callback with code and state.
    const redirect = new URL(fake.consent(authorize_url));
    expect(redirect.searchParams.get('state')).toBe(state);
    const page = await browse(redirect.toString());
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).toContain('Fake Creator is connected');

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

  it('a grant revoked at the host makes the connection invalid with a reconnect error', async () => {
    const token = await stack.api.newSession();
    const { json } = await connect(token);
    const id = json.connection.id as string;
    const grant = [...fake.state.grants.values()].at(-1)!;
    expect(fake.revokeGrants({ token: grant.refreshToken! })).toBe(1);
    const err = await accessTokenFor(ctx, id, { forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconnectRequiredError);
    expect((err as Error).message).toMatch(/connect the account again/);
    const list = await call('GET', '/api/v1/connections', token);
    expect(list.body.connections[0]).toMatchObject({ id, status: 'invalid', status_reason: expect.stringMatching(/invalid_grant/) });
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
    const forged = await browse(`${cb}?code=4%2Fforged&state=${'A'.repeat(43)}`, 'application/json');
    expect([forged.status, JSON.parse(forged.body).error]).toEqual([400, expect.stringMatching(/is unknown/)]);
    expect((await browse(`${cb}?code=x`, 'application/json')).status).toBe(400);

    // Replayed: the same callback URL opened twice.
    const start = await call('POST', '/api/v1/connections/video-host', token);
    const redirect = fake.consent(start.body.connection_request.authorize_url);
    expect((await browse(redirect, 'application/json')).status).toBe(200);
    const replay = await browse(redirect, 'application/json');
    expect([replay.status, JSON.parse(replay.body).error]).toEqual([400, expect.stringMatching(/already used/)]);

    // Expired: consent that comes back after the request's 10 minutes.
    const late = await call('POST', '/api/v1/connections/video-host', token);
    const lateRedirect = fake.consent(late.body.connection_request.authorize_url);
    await ctx.db
      .update(oauthStates)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthStates.state, late.body.connection_request.state));
    const expired = await browse(lateRedirect, 'application/json');
    expect([expired.status, JSON.parse(expired.body).error]).toEqual([400, expect.stringMatching(/expired/)]);

    // Denied: the user clicks Deny; a browser gets a page saying so.
    const deny = await call('POST', '/api/v1/connections/video-host', token);
    const denied = await browse(fake.consent(deny.body.connection_request.authorize_url, { deny: true }));
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
