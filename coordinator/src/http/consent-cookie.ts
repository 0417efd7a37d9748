import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { VideoHostSettings } from '../config.ts';
import type { BrowserNonces, ConsentBinding } from '../service/index.ts';
import { cookieValue } from './cookies.ts';

/**
 * The cookie that binds a consent request to the browser that pressed Continue on our start page
 * (publishing/consent-requests.ts). One per request, named from the request's state (a hash of it,
 * never the state itself), so the callback, which gets only the state, knows which cookie to read
 * and to clear, and two requests in flight in one browser do not overwrite each other.
 * - HttpOnly: no script reads it; SameSite=Lax: it rides the host's top-level redirect back to the
 *   callback, and no cross-site subrequest or POST carries it;
 * - Path: the deepest folder of both the start page and the callback (VideoHostSettings);
 * - Max-Age: the request's remaining life; Secure when PUBLIC_BASE_URL is https.
 */
export const CONSENT_COOKIE_PREFIX = 'cutroom_consent_';

export function consentCookieName(state: string): string {
  return `${CONSENT_COOKIE_PREFIX}${createHash('sha256').update(state).digest('hex').slice(0, 16)}`;
}

/** The request's browser as the publishing side sees it: the nonce its cookie holds for a state. */
export const browserOf =
  (req: FastifyRequest): BrowserNonces =>
  (state) =>
    cookieValue(req.headers.cookie, consentCookieName(state));

const attributes = (settings: VideoHostSettings, secure: boolean) => `Path=${settings.consentCookiePath}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** Set-Cookie for a binding, living as long as its request. */
export function bindingCookie(settings: VideoHostSettings, binding: ConsentBinding, now: Date, secure: boolean): string {
  const maxAge = Math.max(1, Math.ceil((binding.expiresAt.getTime() - now.getTime()) / 1000));
  return `${consentCookieName(binding.state)}=${binding.nonce}; Max-Age=${maxAge}; ${attributes(settings, secure)}`;
}

/** Set-Cookie that removes the cookie of a state (the callback answers, whatever it answers). */
export function clearedCookie(settings: VideoHostSettings, state: string, secure: boolean): string {
  return `${consentCookieName(state)}=; Max-Age=0; ${attributes(settings, secure)}`;
}
