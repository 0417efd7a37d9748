// oauth2.googleapis.com: /token (authorization_code with PKCE, refresh_token), /revoke and
// /tokeninfo, answering RFC 6749 errors with Google's descriptions. The official client sends
// form bodies (client_secret_post); HTTP Basic client authentication works too.
import { createHash, randomBytes } from 'node:crypto';
import type { FakeContext } from '../context.ts';
import { header } from '../context.ts';
import { OAuthError } from '../errors.ts';
import type { AccessToken, Grant } from '../state.ts';
import { randomId } from '../state.ts';

function formParams(ctx: FakeContext): URLSearchParams {
  const text = ctx.req.body.toString('utf8');
  const params = new URLSearchParams(ctx.req.url.search);
  if ((header(ctx, 'content-type') ?? '').includes('json') && text.trim() !== '') {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === 'object') for (const [k, v] of Object.entries(json)) params.set(k, String(v));
    return params;
  }
  for (const [k, v] of new URLSearchParams(text)) params.set(k, v);
  return params;
}

function authenticateClient(ctx: FakeContext, form: URLSearchParams): void {
  let clientId = form.get('client_id');
  let secret = form.get('client_secret');
  const basic = /^Basic\s+(\S+)$/i.exec(header(ctx, 'authorization') ?? '')?.[1];
  if (basic) {
    const [id, ...rest] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    clientId = decodeURIComponent(id ?? '');
    secret = decodeURIComponent(rest.join(':'));
  }
  if (!clientId || clientId !== ctx.settings.clientId) throw new OAuthError(401, 'invalid_client', 'The OAuth client was not found.');
  if (secret !== ctx.settings.clientSecret) throw new OAuthError(401, 'invalid_client', 'Unauthorized');
}

const invalidGrant = (description = 'Bad Request') => new OAuthError(400, 'invalid_grant', description);

function mintAccessToken(ctx: FakeContext, grant: Grant): AccessToken {
  const record = { token: `ya29.${randomId(120)}`, grantId: grant.id, expiresAt: ctx.settings.clock.now() + ctx.settings.accessTokenTtlSec * 1000 };
  ctx.state.accessTokens.set(record.token, record);
  return record;
}

function tokenResponse(ctx: FakeContext, grant: Grant, withRefresh: boolean) {
  const access = mintAccessToken(ctx, grant);
  return {
    access_token: access.token,
    expires_in: ctx.settings.accessTokenTtlSec,
    ...(withRefresh && grant.refreshToken && { refresh_token: grant.refreshToken }),
    ...(withRefresh && grant.refreshExpiresAt !== null && { refresh_token_expires_in: Math.floor((grant.refreshExpiresAt - ctx.settings.clock.now()) / 1000) }),
    scope: grant.scopes.join(' '),
    token_type: 'Bearer',
  };
}

/** RFC 7636 §4.6; a verifier is 43–128 characters of [A-Za-z0-9-._~]. */
function verifierMatches(verifier: string, challenge: string, method: 'S256' | 'plain'): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const derived = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return derived === challenge;
}

function exchangeCode(ctx: FakeContext, form: URLSearchParams) {
  const now = ctx.settings.clock.now();
  const code = ctx.state.codes.get(form.get('code') ?? '');
  if (!code) throw invalidGrant('Malformed auth code.');
  // Google answers a used or expired code with a bare "Bad Request".
  if (code.usedAt !== null || code.expiresAt <= now) throw invalidGrant();
  if (form.get('redirect_uri') !== code.redirectUri) throw new OAuthError(400, 'redirect_uri_mismatch', 'Bad Request');
  const verifier = form.get('code_verifier');
  if (code.codeChallenge !== null && code.codeChallengeMethod !== null) {
    if (!verifier) throw invalidGrant('Missing code verifier.');
    if (!verifierMatches(verifier, code.codeChallenge, code.codeChallengeMethod)) throw invalidGrant('Invalid code verifier.');
  }
  code.usedAt = now;
  const grant: Grant = {
    id: randomId(16),
    clientId: code.clientId,
    userId: code.userId,
    scopes: code.scopes,
    refreshToken: code.offline ? `1//0${randomBytes(70).toString('base64url')}` : null,
    createdAt: now,
    refreshExpiresAt: code.offline && ctx.settings.refreshTokenTtlMs !== null ? now + ctx.settings.refreshTokenTtlMs : null,
    revokedAt: null,
  };
  ctx.state.grants.set(grant.id, grant);
  return tokenResponse(ctx, grant, true);
}

function refresh(ctx: FakeContext, form: URLSearchParams) {
  const token = form.get('refresh_token');
  if (!token) throw new OAuthError(400, 'invalid_request', 'Missing required parameter: refresh_token');
  const grant = [...ctx.state.grants.values()].find((g) => g.refreshToken === token);
  const now = ctx.settings.clock.now();
  if (!grant || grant.revokedAt !== null || (grant.refreshExpiresAt !== null && grant.refreshExpiresAt <= now)) {
    throw invalidGrant('Token has been expired or revoked.');
  }
  if (grant.clientId !== ctx.settings.clientId) throw new OAuthError(401, 'unauthorized_client', 'Unauthorized');
  return tokenResponse(ctx, grant, false);
}

/** POST /token */
export function token(ctx: FakeContext) {
  const form = formParams(ctx);
  authenticateClient(ctx, form);
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') return exchangeCode(ctx, form);
  if (grantType === 'refresh_token') return refresh(ctx, form);
  throw new OAuthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
}

/** The grant behind an access or refresh token, if any. */
export function grantOfToken(ctx: Pick<FakeContext, 'state'>, tokenValue: string): Grant | undefined {
  const access = ctx.state.accessTokens.get(tokenValue);
  if (access) return ctx.state.grants.get(access.grantId);
  return [...ctx.state.grants.values()].find((g) => g.refreshToken === tokenValue);
}

/** POST /revoke?token=… (or token in the form body): ends the whole grant, refresh and access tokens. */
export function revoke(ctx: FakeContext) {
  const value = formParams(ctx).get('token') ?? '';
  const grant = grantOfToken(ctx, value);
  if (!grant || grant.revokedAt !== null) throw new OAuthError(400, 'invalid_token', 'Token expired or revoked');
  grant.revokedAt = ctx.settings.clock.now();
  return {};
}

/** GET|POST /tokeninfo?access_token=… : what a token grants, for clients that check scopes. */
export function tokenInfo(ctx: FakeContext) {
  const form = formParams(ctx);
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(ctx, 'authorization') ?? '')?.[1];
  const record = ctx.state.accessTokens.get(form.get('access_token') ?? bearer ?? '');
  const grant = record ? ctx.state.grants.get(record.grantId) : undefined;
  const now = ctx.settings.clock.now();
  if (!record || !grant || grant.revokedAt !== null || record.expiresAt <= now) throw new OAuthError(400, 'invalid_token', 'Invalid Value');
  return {
    azp: grant.clientId,
    aud: grant.clientId,
    scope: grant.scopes.join(' '),
    exp: String(Math.floor(record.expiresAt / 1000)),
    expires_in: String(Math.floor((record.expiresAt - now) / 1000)),
    access_type: grant.refreshToken ? 'offline' : 'online',
  };
}
