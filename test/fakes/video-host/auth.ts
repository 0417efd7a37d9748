// Bearer tokens on API calls, with Google's answers: no token is 401 `required` ("Login
// Required."), an unknown, expired or revoked one is 401 `authError` ("Invalid Credentials"),
// both with a WWW-Authenticate header; a token without a scope the method accepts is 403
// `insufficientPermissions`. The scope lists are the ones each method's reference page names.
import type { FakeContext } from './context.ts';
import { header } from './context.ts';
import { GoogleApiError } from './errors.ts';
import type { FakeUser, Grant } from './state.ts';

const AUTH = 'https://www.googleapis.com/auth/';
export const SCOPES = {
  youtube: `${AUTH}youtube`,
  forceSsl: `${AUTH}youtube.force-ssl`,
  readonly: `${AUTH}youtube.readonly`,
  upload: `${AUTH}youtube.upload`,
  partner: `${AUTH}youtubepartner`,
} as const;

export const METHOD_SCOPES: Record<string, string[]> = {
  'videos.insert': [SCOPES.upload, SCOPES.youtube, SCOPES.forceSsl, SCOPES.partner],
  'videos.list': [SCOPES.readonly, SCOPES.youtube, SCOPES.forceSsl, SCOPES.partner],
  'videos.delete': [SCOPES.youtube, SCOPES.forceSsl, SCOPES.partner],
  'channels.list': [SCOPES.readonly, SCOPES.youtube, SCOPES.forceSsl, SCOPES.partner],
  'captions.insert': [SCOPES.forceSsl, SCOPES.partner],
  'captions.list': [SCOPES.forceSsl, SCOPES.partner],
};

const CONSOLE_HINT = 'See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export interface Caller {
  grant: Grant;
  user: FakeUser;
}

/** Resolves the caller of an API method, or throws the 401/403 Google would answer. */
export function authenticate(ctx: FakeContext, method: string): Caller {
  const auth = header(ctx, 'authorization') ?? '';
  const token = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
  if (!token) {
    throw new GoogleApiError({
      status: 401,
      reason: 'required',
      message: 'Login Required.',
      topMessage: `Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. ${CONSOLE_HINT}`,
      location: 'Authorization',
      locationType: 'header',
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
    });
  }
  const record = ctx.state.accessTokens.get(token);
  const grant = record ? ctx.state.grants.get(record.grantId) : undefined;
  const user = grant ? ctx.state.users.get(grant.userId) : undefined;
  if (!record || !grant || !user || grant.revokedAt !== null || record.expiresAt <= ctx.settings.clock.now()) {
    throw new GoogleApiError({
      status: 401,
      reason: 'authError',
      message: 'Invalid Credentials',
      topMessage: `Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. ${CONSOLE_HINT}`,
      location: 'Authorization',
      locationType: 'header',
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
    });
  }
  const accepted = METHOD_SCOPES[method] ?? [];
  if (!grant.scopes.some((s) => accepted.includes(s))) {
    throw new GoogleApiError({
      status: 403,
      reason: 'insufficientPermissions',
      message: 'Insufficient Permission',
      topMessage: 'Request had insufficient authentication scopes.',
      headers: { 'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${accepted.join(' ')}"` },
    });
  }
  return { grant, user };
}
