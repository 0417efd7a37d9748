import { youtube } from '@googleapis/youtube';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import type { VideoHostSettings } from '../config.ts';

/** What a token endpoint granted. `expiresInMs` is relative, so callers date it with their own clock. */
export interface TokenGrant {
  accessToken: string;
  /** Absent on most refreshes (the host keeps the same refresh token). */
  refreshToken: string | null;
  expiresInMs: number | null;
  /** Scopes granted; null when the host did not say (then they are the ones asked for). */
  scopes: string[] | null;
}

/** The host refused a code or refresh token for good (`invalid_grant`: expired, used, or revoked). */
export class GrantInvalidError extends Error {
  readonly description: string;
  constructor(description: string) {
    super(`the video host refused the grant (invalid_grant${description ? `: ${description}` : ''})`);
    this.name = 'GrantInvalidError';
    this.description = description;
  }
}

/**
 * Any other failed call to the host (network, 5xx after the library's retries, an unexpected
 * answer). Only the status and the OAuth error code are kept: the library's own error carries
 * the request body (refresh token, client secret) and must never reach a log.
 */
export class HostCallError extends Error {
  readonly call: string;
  readonly status: number | null;
  readonly oauthError: string | null;
  constructor(call: string, status: number | null, oauthError: string | null) {
    super(`video host ${call} failed${status ? ` (HTTP ${status}${oauthError ? `, ${oauthError}` : ''})` : oauthError ? ` (${oauthError})` : ' (no answer)'}`);
    this.name = 'HostCallError';
    this.call = call;
    this.status = status;
    this.oauthError = oauthError;
  }
  /** A 4xx other than 408/429 will not get better by retrying. */
  get retryable(): boolean {
    return this.status === null || this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

export interface HostOAuth {
  /** The consent page: PKCE S256, offline access (a refresh token), consent shown again, incremental scopes. */
  authorizeUrl(state: string, codeChallenge: string): string;
  exchangeCode(code: string, verifier: string): Promise<TokenGrant>;
  refresh(refreshToken: string): Promise<TokenGrant>;
  /** Revokes the grant (at Google, revoking any of its tokens ends the whole grant). */
  revoke(token: string): Promise<void>;
  /** The channel of the account (channels.list mine=true), or null when the host does not say. */
  channel(accessToken: string): Promise<{ id: string; title: string | null } | null>;
}

/** A PKCE pair made by the library (a 128-character verifier and its S256 challenge). */
export async function newPkce(): Promise<{ verifier: string; challenge: string }> {
  const { codeVerifier, codeChallenge } = await new OAuth2Client().generateCodeVerifierAsync();
  if (!codeChallenge) throw new Error('PKCE: no code challenge');
  return { verifier: codeVerifier, challenge: codeChallenge };
}

/** Every host call gives up after this long (the library retries 5xx and network errors within it). */
const TIMEOUT_MS = 20_000;

export function hostOAuth(s: VideoHostSettings): HostOAuth {
  // A client per call: an OAuth2Client holds the credentials it was last given.
  const client = () =>
    new OAuth2Client({
      clientId: s.clientId,
      clientSecret: s.clientSecret,
      redirectUri: s.redirectUrl,
      endpoints: { oauth2AuthBaseUrl: s.authUrl, oauth2TokenUrl: s.tokenUrl, oauth2RevokeUrl: s.revokeUrl },
      transporterOptions: { timeout: TIMEOUT_MS },
    });
  return {
    authorizeUrl: (state, codeChallenge) =>
      client().generateAuthUrl({
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: true,
        scope: s.scopes,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: CodeChallengeMethod.S256,
      }),
    async exchangeCode(code, verifier) {
      const { tokens } = await call('token exchange', () => client().getToken({ code, codeVerifier: verifier }));
      return grantOf(tokens);
    },
    async refresh(refreshToken) {
      const c = client();
      c.setCredentials({ refresh_token: refreshToken });
      const { credentials } = await call('token refresh', () => c.refreshAccessToken());
      return grantOf(credentials);
    },
    async revoke(token) {
      await call('revocation', () => client().revokeToken(token));
    },
    async channel(accessToken) {
      const c = client();
      c.setCredentials({ access_token: accessToken });
      const api = youtube({ version: 'v3', auth: c, rootUrl: `${s.apiBase}/`, timeout: TIMEOUT_MS });
      const res = await call('channels.list', () => api.channels.list({ part: ['snippet'], mine: true }));
      const item = res.data.items?.[0];
      return item?.id ? { id: item.id, title: item.snippet?.title ?? null } : null;
    },
  };
}

interface RawTokens {
  access_token?: string | null;
  refresh_token?: string | null;
  expiry_date?: number | null;
  scope?: string | null;
}

function grantOf(t: RawTokens): TokenGrant {
  if (!t.access_token) throw new HostCallError('token endpoint', null, 'no access_token in the answer');
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? null,
    // The library turns expires_in into an absolute date on the system clock; undo that.
    expiresInMs: typeof t.expiry_date === 'number' ? Math.max(0, t.expiry_date - Date.now()) : null,
    scopes: t.scope ? t.scope.split(/\s+/).filter(Boolean) : null,
  };
}

/** Runs one host call and maps its failure to GrantInvalidError / HostCallError (and nothing else). */
async function call<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const res = (e as { response?: { status?: unknown; data?: unknown } }).response;
    const status = typeof res?.status === 'number' ? res.status : null;
    const data = res?.data && typeof res.data === 'object' ? (res.data as { error?: unknown; error_description?: unknown }) : {};
    const code = typeof data.error === 'string' ? data.error : null;
    if (code === 'invalid_grant') throw new GrantInvalidError(typeof data.error_description === 'string' ? data.error_description.slice(0, 200) : '');
    throw new HostCallError(name, status, code);
  }
}
