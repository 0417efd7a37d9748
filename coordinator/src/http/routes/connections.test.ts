import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { oauthStates } from '../../db/schema.ts';
import { createSessionCall } from '../../service/index.ts';
import { ConsentBrowser, injectTransport } from '../../testing/consent-browser.ts';
import { createEngineCtx, type EngineCtx } from '../../testing/engine-ctx.ts';
import { startOAuthHost, type OAuthHost } from '../../testing/oauth-host.ts';

const uuid = '00000000-0000-4000-8000-000000000001';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('connection routes (publishing not configured)', () => {
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createEngineCtx();
    app = await buildApp({ ctx, healthChecks: {} });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('answers every route with the documented 400 naming the settings, with or without a session', async () => {
    const { session_token } = await createSessionCall(ctx);
    for (const headers of [{ authorization: `Bearer ${session_token}` }, {}]) {
      for (const [method, url, form] of [
        ['POST', '/api/v1/connections/video-host'],
        ['GET', '/api/v1/connections/video-host/start?request=abc'],
        ['POST', '/api/v1/connections/video-host/start', 'request=abc'],
        ['GET', '/api/v1/connections/video-host/callback?state=abc&code=def'],
        ['GET', '/api/v1/connections/video-host/revoke?token=abc'],
        ['POST', '/api/v1/connections/video-host/revoke', 'token=abc'],
        ['GET', '/api/v1/connections'],
        ['DELETE', `/api/v1/connections/${uuid}`],
      ] as const) {
        const res = await app.inject({ method, url, headers: { ...headers, ...(form && FORM) }, ...(form && { payload: form }) });
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json().error).toMatch(/publishing is not configured on this server.*VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET/);
      }
    }
  });

  it('declares the routes under the connections tag with their statuses; the buttons post forms', async () => {
    type Op = { tags: string[]; responses: Record<string, { content?: Record<string, unknown> }>; requestBody?: { content: Record<string, unknown> } };
    const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Op>> };
    const at = (path: string, method: string) => doc.paths[`/api/v1/connections${path}`]![method]!;
    const ops = {
      post: at('/video-host', 'post'),
      start: at('/video-host/start', 'get'),
      press: at('/video-host/start', 'post'),
      callback: at('/video-host/callback', 'get'),
      revokePage: at('/video-host/revoke', 'get'),
      revoke: at('/video-host/revoke', 'post'),
      list: at('', 'get'),
      delete: at('/{id}', 'delete'),
    };
    for (const op of Object.values(ops)) expect(op.tags).toEqual(['connections']);
    expect(Object.keys(ops.post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '429', '503']));
    for (const browserOp of [ops.start, ops.press, ops.callback, ops.revokePage, ops.revoke]) {
      expect(Object.keys(browserOp.responses)).toEqual(expect.arrayContaining(['400', '503']));
      expect(Object.keys(browserOp.responses)).not.toContain('401');
      expect(Object.keys(browserOp.responses['400']!.content!)).toEqual(['application/json', 'text/html']);
    }
    expect(Object.keys(ops.callback.responses)).toContain('200');
    expect(Object.keys(ops.press.responses)).toContain('303');
    for (const form of [ops.press, ops.revoke]) expect(Object.keys(form.requestBody!.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(Object.keys(ops.delete.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
  });
});

describe('connection routes (publishing on, a real token endpoint)', () => {
  let host: OAuthHost;
  let ctx: EngineCtx;
  let app: FastifyInstance;
  let origin: string;
  const browser = () => new ConsentBrowser(injectTransport(app), origin);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  /** A session and a connection request of it: what the app (the attacker's, or the rightful one) holds. */
  const request = async (token?: string) => {
    const session = token ? { session_token: token } : await createSessionCall(ctx);
    const res = await app.inject({ method: 'POST', url: '/api/v1/connections/video-host', headers: bearer(session.session_token) });
    expect(res.statusCode).toBe(201);
    return { token: session.session_token, ...(res.json().connection_request as { authorize_url: string; expires_at: string; session_label: string }) };
  };
  const listOf = async (token: string) =>
    (await app.inject({ url: '/api/v1/connections', headers: bearer(token) })).json().connections as {
      id: string;
      status: string;
      status_reason: string | null;
    }[];
  const codeExchanges = () => host.calls.filter((c) => c === 'POST /token authorization_code').length;
  const startPath = '/api/v1/connections/video-host/start';

  beforeAll(async () => {
    host = await startOAuthHost();
    ctx = await createEngineCtx(host.env);
    app = await buildApp({ ctx, healthChecks: {} });
    origin = new URL(ctx.config.publicBaseUrl).origin;
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await host.stop();
  });

  it('connects in the browser that opened the request (a page, or JSON), lists without tokens, deletes', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/v1/connections/video-host' })).statusCode).toBe(401);
    const { session_id, session_token } = await createSessionCall(ctx);
    const start = await app.inject({ method: 'POST', url: '/api/v1/connections/video-host', headers: bearer(session_token) });
    expect(start.statusCode).toBe(201);
    expect(start.headers['cache-control']).toBe('no-store');
    const { authorize_url, expires_at, session_label } = start.json().connection_request;
    expect(start.json().connection_request).not.toHaveProperty('state');
    expect(session_label).toBe(session_id.replace(/-/g, '').slice(0, 8));
    expect(new Date(expires_at).getTime() - ctx.clock.now().getTime()).toBe(600_000);
    const startUrl = new URL(authorize_url);
    expect(`${startUrl.origin}${startUrl.pathname}`).toBe(`${origin}${startPath}`);
    const [row] = await ctx.db
      .select()
      .from(oauthStates)
      .where(eq(oauthStates.requestId, startUrl.searchParams.get('request')!));
    // The start URL names the request, not the state (which only the bound browser sees, in the host's URL).
    expect(authorize_url).not.toContain(row!.state);
    expect(row).toMatchObject({ browserHash: null, codeVerifierEnc: null });

    // The page names the session, cannot be framed, is not cached, and its form may post to us and go on to the host.
    const user = browser();
    const page = await user.get(authorize_url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(`cutroom session ${session_label}`);
    expect(page.body).toContain('Continue only if you started this from your own app');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${host.url}`);
    expect(page.headers['content-security-policy']).not.toMatch(/script-src/);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['set-cookie']).toBeUndefined(); // opening the page binds nothing (link previewers only GET)

    // Continue: bound (a cookie, only its hash stored), then 303 to the host's consent URL with PKCE.
    const pressed = await user.press(page, authorize_url);
    expect(pressed.res.status).toBe(303);
    const hostUrl = new URL(pressed.res.headers['location'] as string);
    expect(`${hostUrl.origin}${hostUrl.pathname}`).toBe(`${host.url}/auth`);
    expect(Object.fromEntries(hostUrl.searchParams)).toMatchObject({ state: row!.state, code_challenge_method: 'S256', access_type: 'offline' });
    const [cookieName, cookie] = [...user.jar][0]!;
    expect(user.jar.size).toBe(1);
    expect(cookieName).toMatch(/^cutroom_consent_[0-9a-f]{16}$/);
    expect(cookie).toMatchObject({ path: '/api/v1/connections/video-host', httpOnly: true, sameSite: 'Lax' });
    const setCookie = String(pressed.res.headers['set-cookie']);
    expect(setCookie).toMatch(/; Max-Age=600;/);
    expect(setCookie).not.toMatch(/Secure/); // PUBLIC_BASE_URL is http here
    const [bound] = await ctx.db.select().from(oauthStates).where(eq(oauthStates.state, row!.state));
    expect(bound!.browserHash).toMatch(/^[0-9a-f]{64}$/);
    expect(bound!.browserHash).not.toBe(cookie.value);
    expect(bound!.codeVerifierEnc).toMatch(/^v1\./);

    // Consent; the host sends this browser back: connected, JSON for an API client.
    const exchanged = codeExchanges();
    const cb = await user.get(host.consent(hostUrl.toString()).redirect, 'application/json');
    expect(cb.status).toBe(200);
    expect(codeExchanges()).toBe(exchanged + 1);
    const connected = JSON.parse(cb.body);
    expect(connected).toMatchObject({
      connected: true,
      connection: { account_id: 'UCalice', status: 'active' },
      session_label,
      revoke_url: expect.stringMatching(new RegExp(`^${origin}/api/v1/connections/video-host/revoke\\?token=[A-Za-z0-9_-]{43}$`)),
    });
    expect(String(cb.headers['set-cookie'])).toMatch(new RegExp(`^${cookieName}=; Max-Age=0; Path=/api/v1/connections/video-host; HttpOnly; SameSite=Lax$`));
    expect(user.jar.size).toBe(0);
    const id = connected.connection.id as string;

    // A browser gets a page: the channel, the session that holds it, the one-time revoke link.
    const again = await request(session_token);
    const redirect = host.consent(await user.walkToHost(again.authorize_url)).redirect;
    const html = await user.get(redirect);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain(`Channel alice is connected to <strong>cutroom session ${session_label}</strong>`);
    expect(html.body).toMatch(
      /<a href="http:\/\/127\.0\.0\.1:8080\/api\/v1\/connections\/video-host\/revoke\?token=[A-Za-z0-9_-]{43}">Disconnect this channel<\/a>/,
    );
    const replay = await user.get(redirect);
    expect(replay.status).toBe(400);
    expect(replay.headers['content-type']).toMatch(/^text\/html/);
    expect(replay.body).toContain('already used');
    const unknown = await user.get(`${origin}/api/v1/connections/video-host/callback?error=access_denied&state=${bound!.state}x`, 'application/json');
    expect([unknown.status, JSON.parse(unknown.body).error]).toEqual([400, expect.stringMatching(/unknown/)]);

    const list = await app.inject({ url: '/api/v1/connections', headers: bearer(session_token) });
    expect(list.statusCode).toBe(200);
    expect(list.json().connections.map((c: { status: string }) => c.status)).toEqual(['active', 'revoked']);
    expect(list.body).not.toMatch(/ya29\.|1\/\/|refresh|access_token|token=/);
    for (const res of user.seen) expect(res.body).not.toMatch(/ya29\.|1\/\//);

    const other = (await createSessionCall(ctx)).session_token;
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/connections/${id}`, headers: bearer(other) })).statusCode).toBe(404);
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/connections/${id}`, headers: bearer(session_token) });
    expect([del.statusCode, del.json()]).toEqual([200, { deleted: true }]);
  });

  it('the attack fails: the host link of a request the attacker opened, approved by a victim, connects nothing and its code is never exchanged', async () => {
    const attackerApp = await request();
    const attacker = browser();
    const hostUrl = await attacker.walkToHost(attackerApp.authorize_url);
    expect(hostUrl.startsWith(`${host.url}/auth?`)).toBe(true);
    const exchanged = codeExchanges();
    // The attacker sends the host's consent link to the victim, who approves it for their own channel;
    // the host sends the victim's browser (without the attacker's cookie) to our callback.
    const victim = browser();
    const consent = host.consent(hostUrl, 'victim');
    const cb = await victim.get(consent.redirect);
    expect(cb.status).toBe(400);
    expect(cb.headers['content-type']).toMatch(/^text\/html/);
    expect(cb.body).toMatch(/not started in this browser/);
    expect(codeExchanges()).toBe(exchanged);
    expect(await listOf(attackerApp.token)).toEqual([]);
    // The state is burned: the same answer, even from the attacker's own browser, is refused, and nothing is exchanged.
    const replay = await attacker.get(consent.redirect, 'application/json');
    expect([replay.status, JSON.parse(replay.body).error]).toEqual([400, expect.stringMatching(/already used/)]);
    const again = await attacker.get(host.consent(hostUrl, 'victim').redirect, 'application/json');
    expect(again.status).toBe(400);
    expect(codeExchanges()).toBe(exchanged);
    expect(await listOf(attackerApp.token)).toEqual([]);
    // A victim's browser holding a consent cookie of its own (its own request in flight) fares no better.
    const own = await request();
    await victim.walkToHost(own.authorize_url);
    const other = await attacker.walkToHost((await request()).authorize_url);
    const mixed = await victim.get(host.consent(other, 'victim').redirect, 'application/json');
    expect([mixed.status, JSON.parse(mixed.body).error]).toEqual([400, expect.stringMatching(/not started in this browser/)]);
    expect(codeExchanges()).toBe(exchanged);
  });

  it('the attack fails: a start link the attacker already opened is refused in the victim’s browser', async () => {
    const attackerApp = await request();
    const attacker = browser();
    await attacker.walkToHost(attackerApp.authorize_url);
    const victim = browser();
    await expect(victim.walkToHost(attackerApp.authorize_url)).rejects.toThrow(/already opened in another browser/);
    // Pressing Continue on a copy of the page made before (the form posted without the attacker's cookie) is refused too.
    const form = await victim.request('POST', `${origin}${startPath}`, {
      form: { request: new URL(attackerApp.authorize_url).searchParams.get('request') ?? '' },
      headers: { origin, 'sec-fetch-site': 'same-origin' },
    });
    expect([form.status, form.body]).toEqual([400, expect.stringMatching(/already opened in another browser/)]);
    expect(victim.jar.size).toBe(0);
    // The attacker's own browser may press again: the same binding, a fresh host link.
    const twice = await attacker.walkToHost(attackerApp.authorize_url);
    expect(twice.startsWith(`${host.url}/auth?`)).toBe(true);
  });

  it('the attack fails: a cross-site form (the attacker’s page posting Continue from the victim’s browser) binds nothing', async () => {
    const attackerApp = await request();
    const victim = browser();
    const id = new URL(attackerApp.authorize_url).searchParams.get('request') ?? '';
    const forged: Record<string, string>[] = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
      {},
    ];
    for (const headers of forged) {
      const res = await victim.request('POST', `${origin}${startPath}`, { form: { request: id }, headers });
      expect([res.status, res.body], JSON.stringify(headers)).toEqual([400, expect.stringMatching(/start page itself/)]);
    }
    expect(victim.jar.size).toBe(0);
    // Still unbound: the rightful browser can open it.
    expect((await browser().walkToHost(attackerApp.authorize_url)).startsWith(`${host.url}/auth?`)).toBe(true);
  });

  it('only the host link of the last press completes; unknown, used and expired requests are refused on the start page', async () => {
    const app1 = await request();
    const user = browser();
    const first = await user.walkToHost(app1.authorize_url);
    const second = await user.walkToHost(app1.authorize_url);
    expect(new URL(second).searchParams.get('state')).toBe(new URL(first).searchParams.get('state'));
    expect(new URL(second).searchParams.get('code_challenge')).not.toBe(new URL(first).searchParams.get('code_challenge'));
    // The first link's code was bound to the first challenge: the host refuses it with the stored (second) verifier.
    const stale = await user.get(host.consent(first).redirect, 'application/json');
    expect([stale.status, JSON.parse(stale.body).error]).toEqual([400, expect.stringMatching(/refused the authorization code/)]);
    // Used now: the start page says so.
    const used = await user.get(app1.authorize_url);
    expect([used.status, used.body]).toEqual([400, expect.stringMatching(/already used/)]);
    const unknown = await user.get(`${origin}${startPath}?request=nope`, 'application/json');
    expect([unknown.status, JSON.parse(unknown.body).error]).toEqual([400, expect.stringMatching(/unknown/)]);
    const late = await request();
    ctx.clock.advance(601_000);
    await expect(browser().walkToHost(late.authorize_url)).rejects.toThrow(/expired/);
  });

  it('the one-time revoke link: opening it changes nothing, its button disconnects here and at the host, once', async () => {
    const { token, session_label } = await request();
    const user = browser();
    const hostUrl = await user.walkToHost((await request(token)).authorize_url);
    const connected = JSON.parse((await user.get(host.consent(hostUrl, 'carol').redirect, 'application/json')).body);
    const revokeUrl = connected.revoke_url as string;
    const grant = [...host.refresh.values()].at(-1)!;

    // Opened (by the user, or a link previewer): a confirmation page, nothing revoked.
    const page = await browser().get(revokeUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`Disconnect Channel carol from <strong>cutroom session ${session_label}</strong>?`);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'.*form-action 'self'|form-action 'self'.*frame-ancestors 'none'/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect((await listOf(token))[0]).toMatchObject({ status: 'active' });
    expect(grant.revoked).toBe(false);

    // The button: revoked here (why: the consent page) and at the host.
    const other = browser();
    const done = await other.press(page, revokeUrl);
    expect(done.res.status).toBe(200);
    expect(done.res.body).toContain(`Channel carol is no longer connected to cutroom session ${session_label}`);
    expect((await listOf(token))[0]).toMatchObject({ id: connected.connection.id, status: 'revoked', status_reason: 'disconnected from the consent page' });
    expect(grant.revoked).toBe(true);

    // Once: the same button again, the link again, or a made-up token: 400, a page for a browser, JSON otherwise.
    const twice = await other.press(page, revokeUrl);
    expect([twice.res.status, twice.res.body]).toEqual([400, expect.stringMatching(/already used/)]);
    expect((await other.get(revokeUrl)).status).toBe(400);
    const made = await app.inject({ method: 'POST', url: '/api/v1/connections/video-host/revoke', headers: FORM, payload: `token=${'A'.repeat(43)}` });
    expect([made.statusCode, made.json().error]).toEqual([400, expect.stringMatching(/already used, is unknown/)]);

    // A link whose connection left `active` another way (replaced by a newer connection) is dead too.
    const connect = async () =>
      JSON.parse((await user.get(host.consent(await user.walkToHost((await request(token)).authorize_url)).redirect, 'application/json')).body);
    const first = await connect();
    const latest = await connect();
    const replaced = await app.inject({ url: first.revoke_url.replace(origin, ''), headers: { accept: 'application/json' } });
    expect([replaced.statusCode, replaced.json().error]).toEqual([400, expect.stringMatching(/no longer active/)]);
    // An API client posting the link's token gets JSON.
    const byApi = await app.inject({
      method: 'POST',
      url: '/api/v1/connections/video-host/revoke',
      headers: { ...FORM, accept: 'application/json' },
      payload: `token=${new URL(latest.revoke_url).searchParams.get('token')}`,
    });
    expect([byApi.statusCode, byApi.json()]).toMatchObject([
      200,
      { revoked: true, session_label, connection: { id: latest.connection.id, status: 'revoked' } },
    ]);
  });
});
