// The account connection through google-auth-library's OAuth2Client: consent → code → token
// with PKCE, refresh, expiry on the fake's clock, revoke, and what Google refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVideoHostFake, type VideoHostFake } from './index.ts';
import { connect, oauthClient, REDIRECT_URI, startAuth } from './test-client.ts';

let fake: VideoHostFake;

beforeAll(async () => {
  fake = await startVideoHostFake();
});
afterAll(() => fake.stop());

const errorOf = (err: unknown) => (err as { response?: { status: number; data: any } }).response;

describe('video host fake: OAuth', () => {
  it('walks consent → code → tokens with PKCE S256 and returns state to the redirect URI', async () => {
    const { oauth2, authUrl, codeVerifier } = await startAuth(fake);
    expect(authUrl.startsWith(`${fake.url}/o/oauth2/v2/auth?`)).toBe(true);
    const back = new URL(fake.consent(authUrl));
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('state-123');
    const { tokens } = await oauth2.getToken({ code: back.searchParams.get('code') ?? '', codeVerifier });
    expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^ya29\./), refresh_token: expect.stringMatching(/^1\/\//), token_type: 'Bearer' });
    expect(tokens.scope?.split(' ')).toEqual(['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.force-ssl']);
    expect((tokens.expiry_date ?? 0) - Date.now()).toBeGreaterThan(3500_000);
  });

  it('refuses a wrong code verifier, then the used code', async () => {
    const { oauth2, authUrl, codeVerifier } = await startAuth(fake);
    const code = new URL(fake.consent(authUrl)).searchParams.get('code') ?? '';
    // Another last character (a random verifier ends in 'A' one time in 64).
    const other = `${codeVerifier.slice(0, -1)}${codeVerifier.endsWith('A') ? 'B' : 'A'}`;
    const wrong = await oauth2.getToken({ code, codeVerifier: other }).catch((e: unknown) => e);
    expect(errorOf(wrong)).toMatchObject({ status: 400, data: { error: 'invalid_grant', error_description: 'Invalid code verifier.' } });
    const missing = await oauth2.getToken({ code }).catch((e: unknown) => e);
    expect(errorOf(missing)?.data).toEqual({ error: 'invalid_grant', error_description: 'Missing code verifier.' });
    await oauth2.getToken({ code, codeVerifier });
    const reused = await oauth2.getToken({ code, codeVerifier }).catch((e: unknown) => e);
    expect(errorOf(reused)?.data).toEqual({ error: 'invalid_grant', error_description: 'Bad Request' });
  });

  it('refuses a wrong client secret and an expired code', async () => {
    const { authUrl, codeVerifier } = await startAuth(fake);
    const code = new URL(fake.consent(authUrl)).searchParams.get('code') ?? '';
    const impostor = oauthClient({ ...fake, clientSecret: 'GOCSPX-wrong' });
    const err = await impostor.getToken({ code, codeVerifier }).catch((e: unknown) => e);
    expect(errorOf(err)).toMatchObject({ status: 401, data: { error: 'invalid_client' } });
    fake.advanceTime(10 * 60_000 + 1);
    const late = await oauthClient(fake)
      .getToken({ code, codeVerifier })
      .catch((e: unknown) => e);
    expect(errorOf(late)?.data.error).toBe('invalid_grant');
  });

  it('serves a consent page whose Allow button redirects with a code, and Deny with access_denied', async () => {
    const { authUrl } = await startAuth(fake);
    const page = await fetch(authUrl);
    const html = await page.text();
    expect(html).toContain('youtube.upload');
    const request = /name="request" value="([^"]*)"/.exec(html)?.[1]?.replaceAll('&#38;', '&') ?? '';
    const submit = (decision: string) =>
      fetch(`${fake.url}/o/oauth2/v2/auth/approve`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ request, user: fake.defaultUser.id, decision }),
      });
    const allowed = await submit('allow');
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.headers.get('location') ?? '').searchParams.get('code')).toMatch(/^4\/0/);
    const denied = new URL((await submit('deny')).headers.get('location') ?? '');
    expect(Object.fromEntries(denied.searchParams)).toEqual({ state: 'state-123', error: 'access_denied' });
  });

  it('never redirects to an unregistered redirect URI', async () => {
    const strict = await startVideoHostFake({ redirectUris: ['https://cutroom.test/callback'] });
    try {
      const { authUrl } = await startAuth(strict);
      expect(() => strict.consent(authUrl)).toThrow(/redirect_uri_mismatch/);
      expect((await fetch(authUrl)).status).toBe(400);
      strict.env(REDIRECT_URI); // registers the coordinator's callback
      expect(new URL(strict.consent(authUrl)).searchParams.get('code')).toBeTruthy();
    } finally {
      await strict.stop();
    }
  });

  it('refreshes an expired access token; the API answers 401 authError to the expired one', async () => {
    const { oauth2, yt } = await connect(fake);
    const first = oauth2.credentials.access_token;
    fake.advanceTime(3600_000);
    // The client's own clock still trusts the token; the host does not.
    const err = await yt.channels.list({ part: ['snippet'], mine: true }).catch((e: unknown) => e);
    expect(errorOf(err)).toMatchObject({
      status: 401,
      data: { error: { code: 401, status: 'UNAUTHENTICATED', errors: [{ reason: 'authError', message: 'Invalid Credentials' }] } },
    });
    const refreshed = await oauth2.refreshAccessToken();
    expect(refreshed.credentials.access_token).not.toBe(first);
    const me = await yt.channels.list({ part: ['snippet'], mine: true });
    expect(me.data.items?.[0]).toMatchObject({ id: fake.defaultUser.id, snippet: { title: 'Fake Creator' } });
  });

  it('lets the client refresh by itself: after a 401 when it has no expiry date, before a call when past it', async () => {
    const { oauth2, refreshToken } = await connect(fake);
    const stale = oauth2.credentials.access_token;
    fake.advanceTime(3600_000);
    oauth2.setCredentials({ access_token: stale, refresh_token: refreshToken }); // tokens as a service stores them, no expiry
    const res = await oauth2.request<{ items: { id: string }[] }>({ url: `${fake.url}/youtube/v3/channels?part=id&mine=true` });
    expect(res.data.items[0]?.id).toBe(fake.defaultUser.id);
    expect(
      fake.state.requests
        .filter((r) => r.route === 'channels.list' || r.route === 'oauth.token')
        .slice(-3)
        .map((r) => [r.route, r.status]),
    ).toEqual([
      ['channels.list', 401],
      ['oauth.token', 200],
      ['channels.list', 200],
    ]);
    oauth2.setCredentials({ ...oauth2.credentials, expiry_date: Date.now() - 1000 });
    const before = oauth2.credentials.access_token;
    const { token } = await oauth2.getAccessToken();
    expect(token).toMatch(/^ya29\./);
    expect(token).not.toBe(before);
  });

  it('revokes the grant: the access token stops working and a refresh is invalid_grant', async () => {
    const { oauth2, yt } = await connect(fake);
    await oauth2.revokeToken(oauth2.credentials.access_token ?? '');
    const api = await yt.channels.list({ part: ['id'], mine: true }).catch((e: unknown) => e);
    expect(errorOf(api)?.status).toBe(401);
    const refresh = await oauth2.refreshAccessToken().catch((e: unknown) => e);
    expect(refresh).toMatchObject({ message: 'invalid_grant' });
    expect(errorOf(refresh)?.data).toEqual({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    const again = await oauth2.revokeToken(oauth2.credentials.refresh_token ?? '').catch((e: unknown) => e);
    expect(errorOf(again)?.data.error).toBe('invalid_token');
  });

  it('revokes from the host side (the user removes access) through the control API', async () => {
    const other = fake.createUser({ title: 'Second channel' });
    const { oauth2 } = await connect(fake, { user: other });
    expect(fake.revokeGrants({ channelId: other.id })).toBe(1);
    await expect(oauth2.refreshAccessToken()).rejects.toMatchObject({ message: 'invalid_grant' });
  });

  it('gives a refresh token again only with prompt=consent', async () => {
    const user = fake.createUser({ title: 'Returning' });
    await connect(fake, { user });
    const oauth2 = oauthClient(fake);
    const { codeChallenge } = await oauth2.generateCodeVerifierAsync();
    const authUrl = oauth2.generateAuthUrl({
      access_type: 'offline',
      scope: ['https://www.googleapis.com/auth/youtube.upload'],
      code_challenge: codeChallenge as string,
    });
    const code = new URL(fake.consent(authUrl, { user })).searchParams.get('code') ?? '';
    // No code_challenge_method: RFC 7636's default `plain`, so the verifier is the challenge itself.
    const { tokens } = await oauth2.getToken({ code, codeVerifier: codeChallenge as string });
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeUndefined();
  });
});
