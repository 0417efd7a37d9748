import type { CoordinatorConfig } from '../config.ts';

/** How GET /metrics is served on one listener: without a credential, with the Bearer METRICS_TOKEN, or not at all (404). */
export type MetricsAccess = 'open' | 'token' | 'off';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The rule (config.ts METRICS_TOKEN):
 * - METRICS_TOKEN set: served on every listener, and only to `Authorization: Bearer <METRICS_TOKEN>`.
 * - Unset, the agent listener (AGENT_LISTEN_PORT): served as is; that listener is for the workers'
 *   network and is never published.
 * - Unset, the public listener: served only in the embedded default on one machine (no
 *   DATABASE_URL, HOST a loopback address, and PUBLIC_BASE_URL unset or on a loopback address too:
 *   a reverse proxy on the same host publishes a loopback listener under a public name); anywhere
 *   else it is not served (404), so a deployment never publishes job, payment and agent figures by
 *   omission.
 */
export function metricsAccess(
  config: Pick<CoordinatorConfig, 'METRICS_TOKEN' | 'DATABASE_URL' | 'HOST' | 'PUBLIC_BASE_URL'>,
  listener: 'public' | 'agent',
): MetricsAccess {
  if (config.METRICS_TOKEN) return 'token';
  if (listener === 'agent') return 'open';
  const publishedOnLoopback = config.PUBLIC_BASE_URL === undefined || LOOPBACK.has(new URL(config.PUBLIC_BASE_URL).hostname.replace(/^\[|\]$/g, ''));
  return !config.DATABASE_URL && LOOPBACK.has(config.HOST) && publishedOnLoopback ? 'open' : 'off';
}
