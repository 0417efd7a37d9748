import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthHost {
  url: string;
  /** Coordinator settings that point publishing at this server. */
  env: Record<string, string>;
  /** `METHOD /path grant_type` of every request, in order. */
  calls: string[];
  /** Refresh tokens issued, with whether they were revoked (tests may revoke them by hand). */
  refresh: Map<string, { revoked: boolean; user: string; scope: string }>;
  /** The next n requests answer 503. */
  failNext(n: number): void;
  /**
   * The user consents on the consent page: a code bound to the URL's PKCE challenge and redirect
   * URI, and `redirect`, the callback URL the host sends the user's browser to.
   */
  consent(authorizeUrl: string, user?: string, scope?: string): { code: string; state: string; redirect: string };
  stop(): Promise<void>;
}

/**
 * A small OAuth 2.0 + channels.list server with Google's shapes, for engine tests of
 * publishing/connections.ts: codes bound to a PKCE challenge, refresh tokens that can be
 * revoked, one channel per user. The stateful video host fake (test/fakes/video-host) covers the
 * whole host in the integration suite.
 */
export async function startOAuthHost(): Promise<OAuthHost> {
  const codes = new Map<string, { challenge: string; redirect: string; scope: string; user: string }>();
  const refresh = new Map<string, { revoked: boolean; user: string; scope: string }>();
  const access = new Map<string, string>();
  const calls: string[] = [];
  let failNext = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const form = new URLSearchParams(body);
      const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      calls.push(`${req.method} ${url.pathname} ${form.get('grant_type') ?? ''}`.trim());
      if (failNext > 0) {
        failNext--;
        return send(503, { error: 'temporarily_unavailable' });
      }
      if (url.pathname === '/token') {
        if (form.get('client_id') !== 'client-1' || form.get('client_secret') !== 'secret-1') return send(401, { error: 'invalid_client' });
        const mint = (user: string, scope: string, withRefresh: boolean) => {
          const at = `ya29.${randomBytes(12).toString('hex')}`;
          access.set(at, user);
          const rt = withRefresh ? `1//${randomBytes(12).toString('hex')}` : undefined;
          if (rt) refresh.set(rt, { revoked: false, user, scope });
          return send(200, { access_token: at, expires_in: 3599, token_type: 'Bearer', scope, ...(rt && { refresh_token: rt }) });
        };
        if (form.get('grant_type') === 'authorization_code') {
          const c = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const challenge = createHash('sha256')
            .update(form.get('code_verifier') ?? '')
            .digest('base64url');
          if (!c || c.challenge !== challenge || c.redirect !== form.get('redirect_uri'))
            return send(400, { error: 'invalid_grant', error_description: 'Bad Request' });
          return mint(c.user, c.scope, true);
        }
        const r = refresh.get(form.get('refresh_token') ?? '');
        if (!r || r.revoked) return send(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        return mint(r.user, r.scope, false);
      }
      if (url.pathname === '/revoke') {
        const r = refresh.get(url.searchParams.get('token') ?? form.get('token') ?? '');
        if (!r) return send(400, { error: 'invalid_token' });
        r.revoked = true;
        return send(200, {});
      }
      if (url.pathname === '/youtube/v3/channels') {
        const user = access.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (!user) return send(401, { error: { code: 401, message: 'Invalid Credentials' } });
        return send(200, { kind: 'youtube#channelListResponse', items: [{ id: `UC${user}`, snippet: { title: `Channel ${user}` } }] });
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      VIDEO_HOST_CLIENT_ID: 'client-1',
      VIDEO_HOST_CLIENT_SECRET: 'secret-1',
      VIDEO_HOST_AUTH_URL: `${url}/auth`,
      VIDEO_HOST_TOKEN_URL: `${url}/token`,
      VIDEO_HOST_REVOKE_URL: `${url}/revoke`,
      VIDEO_HOST_API_BASE: url,
    },
    calls,
    refresh,
    failNext: (n) => {
      failNext = n;
    },
    consent(authorizeUrl, user = 'alice', scope) {
      const u = new URL(authorizeUrl);
      const code = `4/${randomBytes(8).toString('hex')}`;
      codes.set(code, {
        challenge: u.searchParams.get('code_challenge')!,
        redirect: u.searchParams.get('redirect_uri')!,
        scope: scope ?? u.searchParams.get('scope')!,
        user,
      });
      const state = u.searchParams.get('state')!;
      const redirect = new URL(u.searchParams.get('redirect_uri')!);
      redirect.search = new URLSearchParams({ state, code, scope: scope ?? u.searchParams.get('scope')! }).toString();
      return { code, state, redirect: redirect.toString() };
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
