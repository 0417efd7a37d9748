import { loadCoordinatorConfig } from '../config.ts';
import { type Site, siteOf } from './site.ts';

/** A Site for the unit tests: both rails configured (billing on) or none (billing off). */
export function testSite(billing: boolean, env: Record<string, string> = {}): Site {
  const config = loadCoordinatorConfig({ PUBLIC_BASE_URL: 'https://cutroom.example.com', LOG_LEVEL: 'silent', ...env });
  return siteOf(config, billing ? { enabled: true, chain: {} as never, card: {} as never } : { enabled: false, chain: null, card: null });
}
