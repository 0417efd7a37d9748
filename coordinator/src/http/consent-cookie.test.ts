import { describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from '../config.ts';
import { bindingCookie, browserOf, clearedCookie, consentCookieName } from './consent-cookie.ts';

const settings = (base: string) => loadCoordinatorConfig({ VIDEO_HOST_CLIENT_ID: 'id', VIDEO_HOST_CLIENT_SECRET: 'secret', PUBLIC_BASE_URL: base }).videoHost!;

describe('the consent cookie', () => {
  const now = new Date('2026-11-01T00:00:00Z');
  const binding = { hostUrl: 'https://host/auth', state: 'state-1', nonce: 'nonce-1', expiresAt: new Date(now.getTime() + 599_500) };

  it('is named from a hash of the state (never the state), lives as long as its request, HttpOnly, SameSite=Lax, on the flow’s folder', () => {
    const name = consentCookieName('state-1');
    expect(name).toMatch(/^cutroom_consent_[0-9a-f]{16}$/);
    expect(name).not.toContain('state-1');
    expect(consentCookieName('state-2')).not.toBe(name);
    expect(bindingCookie(settings('http://127.0.0.1:8080'), binding, now, false)).toBe(
      `${name}=nonce-1; Max-Age=600; Path=/api/v1/connections/video-host; HttpOnly; SameSite=Lax`,
    );
    // Secure behind https; the folder follows a path prefix of PUBLIC_BASE_URL.
    expect(bindingCookie(settings('https://cut.example/tools'), binding, now, true)).toBe(
      `${name}=nonce-1; Max-Age=600; Path=/tools/api/v1/connections/video-host; HttpOnly; SameSite=Lax; Secure`,
    );
    // A request about to expire still gets a cookie that lives a second, never Max-Age=0 (which deletes it).
    expect(bindingCookie(settings('http://127.0.0.1:8080'), { ...binding, expiresAt: now }, now, false)).toMatch(/; Max-Age=1;/);
    expect(clearedCookie(settings('http://127.0.0.1:8080'), 'state-1', false)).toBe(
      `${name}=; Max-Age=0; Path=/api/v1/connections/video-host; HttpOnly; SameSite=Lax`,
    );
  });

  it('is read back per state, and a malformed value is no value', () => {
    const name = consentCookieName('state-1');
    const req = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as Parameters<typeof browserOf>[0];
    expect(browserOf(req(`a=b; ${name}=nonce-1; ${consentCookieName('state-2')}=nonce-2`))('state-1')).toBe('nonce-1');
    expect(browserOf(req(`${name}=nonce-1`))('state-2')).toBeNull();
    expect(browserOf(req())('state-1')).toBeNull();
    expect(browserOf(req(`${name}=%zz`))('state-1')).toBeNull();
  });
});
