// The consent screen (accounts.google.com/o/oauth2/v2/auth). GET answers an HTML page with
// the requested scopes, a choice of account and Allow / Deny buttons; the form posts to
// /o/oauth2/v2/auth/approve, which redirects back to redirect_uri with `code`, `scope` and
// `state`, or with `error=access_denied`. Tests skip the page through `consent()`, the same
// decision in one call. Like Google, a request the client cannot be trusted with (unknown
// client, unregistered redirect URI, malformed parameters) never redirects: it ends on an error
// page (400/401) and `consent()` throws.
import { randomBytes } from 'node:crypto';
import type { FakeContext, FakeSettings } from '../context.ts';
import { Reply } from '../reply.ts';
import type { FakeState, FakeUser } from '../state.ts';

export interface ConsentOptions {
  /** the account that consents: a user or its channel id @default the first user */
  user?: FakeUser | string;
  /** click Deny instead @default false */
  deny?: boolean;
  /** grant only these of the requested scopes (Google's granular consent) @default all requested */
  scopes?: string[];
}

/** What Google shows on its own error page instead of redirecting ("Error 400: redirect_uri_mismatch"). */
export class ConsentPageError extends Error {
  override name = 'ConsentPageError';
  readonly status: number;
  readonly error: string;
  constructor(status: number, error: string, description: string) {
    super(`Error ${status}: ${error}: ${description}`);
    this.status = status;
    this.error = error;
  }
}

interface AuthRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  offlineRequested: boolean;
  promptConsent: boolean;
}

export function isRegisteredRedirect(settings: FakeSettings, uri: string): boolean {
  if (settings.redirectUris.includes(uri)) return true;
  if (!settings.allowLoopbackRedirects) return false;
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

function parseAuthRequest(settings: FakeSettings, q: URLSearchParams): AuthRequest {
  const clientId = q.get('client_id');
  if (!clientId) throw new ConsentPageError(400, 'invalid_request', 'Missing required parameter: client_id');
  if (clientId !== settings.clientId) throw new ConsentPageError(401, 'invalid_client', 'The OAuth client was not found.');
  const redirectUri = q.get('redirect_uri');
  if (!redirectUri) throw new ConsentPageError(400, 'invalid_request', 'Missing required parameter: redirect_uri');
  if (!isRegisteredRedirect(settings, redirectUri)) {
    throw new ConsentPageError(
      400,
      'redirect_uri_mismatch',
      `The redirect URI in the request, ${redirectUri}, does not match the ones authorized for the OAuth client.`,
    );
  }
  const responseType = q.get('response_type');
  if (responseType !== 'code') throw new ConsentPageError(400, 'unsupported_response_type', `Invalid response_type: ${responseType ?? '(missing)'}`);
  const scopes = (q.get('scope') ?? '').split(/\s+/).filter((s) => s !== '');
  if (scopes.length === 0) throw new ConsentPageError(400, 'invalid_request', 'Missing required parameter: scope');
  const codeChallenge = q.get('code_challenge');
  const method = q.get('code_challenge_method');
  if (method !== null && method !== 'S256' && method !== 'plain')
    throw new ConsentPageError(400, 'invalid_request', `Invalid code_challenge_method: ${method}`);
  if (method !== null && !codeChallenge) throw new ConsentPageError(400, 'invalid_request', 'code_challenge_method without code_challenge');
  // Stricter than Google, which makes PKCE optional for web clients: the service must use it.
  if (!codeChallenge && settings.requirePkce)
    throw new ConsentPageError(400, 'invalid_request', 'Missing required parameter: code_challenge (the fake requires PKCE)');
  const accessType = q.get('access_type') ?? 'online';
  if (accessType !== 'online' && accessType !== 'offline') throw new ConsentPageError(400, 'invalid_request', `Invalid access_type: ${accessType}`);
  return {
    clientId,
    redirectUri,
    scopes,
    state: q.get('state'),
    codeChallenge,
    // RFC 7636: a challenge without a method is `plain`.
    codeChallengeMethod: codeChallenge ? ((method as 'S256' | 'plain' | null) ?? 'plain') : null,
    offlineRequested: accessType === 'offline',
    promptConsent: (q.get('prompt') ?? '').split(/\s+/).includes('consent'),
  };
}

function resolveUser(state: FakeState, user: FakeUser | string | undefined): FakeUser {
  const id = typeof user === 'string' ? user : user?.id;
  const found = id ? state.users.get(id) : state.users.values().next().value;
  if (!found) throw new ConsentPageError(400, 'invalid_request', `No such account: ${id ?? '(none created)'}`);
  return found;
}

/** The consent decision: the redirect URL back to the client, with a code or an error. */
export function decideConsent(ctx: Pick<FakeContext, 'state' | 'settings'>, query: URLSearchParams, opts: ConsentOptions = {}): string {
  const request = parseAuthRequest(ctx.settings, query);
  const back = new URL(request.redirectUri);
  if (request.state !== null) back.searchParams.set('state', request.state);
  if (opts.deny) {
    back.searchParams.set('error', 'access_denied');
    return back.toString();
  }
  const user = resolveUser(ctx.state, opts.user);
  const scopes = opts.scopes ? request.scopes.filter((s) => opts.scopes?.includes(s)) : request.scopes;
  if (scopes.length === 0) throw new Error('video-host fake: consent must grant at least one requested scope');
  // Google returns a refresh token on the first offline consent of a user to a client, and
  // again only when prompt=consent asks for the consent screen anew.
  const hasLiveRefresh = [...ctx.state.grants.values()].some(
    (g) => g.clientId === request.clientId && g.userId === user.id && g.refreshToken !== null && g.revokedAt === null,
  );
  const code = `4/0${randomBytes(36).toString('base64url')}`;
  ctx.state.codes.set(code, {
    code,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    userId: user.id,
    scopes,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    offline: request.offlineRequested && (request.promptConsent || !hasLiveRefresh),
    expiresAt: ctx.settings.clock.now() + ctx.settings.codeTtlMs,
    usedAt: null,
  });
  back.searchParams.set('code', code);
  back.searchParams.set('scope', scopes.join(' '));
  return back.toString();
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function errorPage(err: ConsentPageError): Reply {
  return new Reply({
    status: err.status,
    html: `<!doctype html><html><head><title>Error</title></head><body><h1>Access blocked</h1><p id="error">Error ${err.status}: ${escapeHtml(err.error)}</p><p>${escapeHtml(err.message)}</p></body></html>`,
  });
}

/** GET /o/oauth2/v2/auth */
export function showConsentPage(ctx: FakeContext): Reply {
  const query = ctx.req.url.searchParams;
  let request: AuthRequest;
  try {
    request = parseAuthRequest(ctx.settings, query);
  } catch (err) {
    if (err instanceof ConsentPageError) return errorPage(err);
    throw err;
  }
  const users = [...ctx.state.users.values()]
    .map((u, i) => `<label><input type="radio" name="user" value="${escapeHtml(u.id)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(u.title)}</label><br>`)
    .join('');
  const scopes = request.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  return new Reply({
    status: 200,
    html:
      `<!doctype html><html><head><title>Sign in - Fake video host</title></head><body><h1>Allow access to your channel?</h1><ul id="scopes">${scopes}</ul>` +
      `<form method="post" action="/o/oauth2/v2/auth/approve"><input type="hidden" name="request" value="${escapeHtml(query.toString())}">${users}` +
      '<button id="allow" type="submit" name="decision" value="allow">Allow</button> <button id="deny" type="submit" name="decision" value="deny">Deny</button></form></body></html>',
  });
}

/** POST /o/oauth2/v2/auth/approve (form: request, user, decision) → 302 to the redirect URI. */
export function submitConsentPage(ctx: FakeContext): Reply {
  const form = new URLSearchParams(ctx.req.body.toString('utf8'));
  const user = form.get('user');
  try {
    const location = decideConsent(ctx, new URLSearchParams(form.get('request') ?? ''), {
      deny: form.get('decision') === 'deny',
      ...(user && { user }),
    });
    return new Reply({ status: 302, headers: { location } });
  } catch (err) {
    if (err instanceof ConsentPageError) return errorPage(err);
    throw err;
  }
}
