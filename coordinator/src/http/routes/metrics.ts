import type { FastifyPluginAsync } from 'fastify';
import type { Ctx } from '../../context.ts';
import { safeEqual } from '../../lib/tokens.ts';
import { metricsAccess } from '../../metrics/access.ts';
import { enableScrape } from '../../metrics/scrape.ts';
import { bearerToken } from '../auth.ts';

/**
 * GET /metrics in the Prometheus text format (coordinator/src/metrics/README.md), on the listener
 * the access rule allows (metrics/access.ts: METRICS_TOKEN, the agent listener, the embedded
 * default); not registered at all where it says `off`. Hidden from /openapi.json: it is for the
 * operator's Prometheus, not for callers (and the API fuzz test never reaches it).
 */
export const metricsRoutes: FastifyPluginAsync<{ ctx: Ctx; listener: 'public' | 'agent' }> = async (app, { ctx, listener }) => {
  const access = metricsAccess(ctx.config, listener);
  if (access === 'off') return;
  const scraper = enableScrape(ctx);
  const token = ctx.config.METRICS_TOKEN;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (access === 'token') {
      const given = bearerToken(req);
      if (!given || !token || !safeEqual(given, token)) {
        return reply
          .status(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .send({ error: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' });
      }
    }
    const body = await scraper.metrics();
    return reply.header('cache-control', 'no-store').type(scraper.contentType).send(body);
  });
};
