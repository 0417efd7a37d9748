import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { metricsOf } from './registry.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method, or `OTHER`: a made-up method must not become a series of its own. */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'OTHER');

/** The route pattern as registered (`/api/v1/jobs/:id`), never the raw URL; `unmatched` when no route matched (a 404 of the router). */
export const routeLabel = (pattern: string | undefined): string => pattern || 'unmatched';

/** `2xx`, `4xx`, …; anything out of range is `other`. */
export const statusClass = (status: number): string => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other');

/**
 * Times every answer of this listener into `cutroom_http_request_duration_seconds` (fastify's own
 * `elapsedTime`, from the request's arrival to the end of the answer). Installed on the root
 * instance before any route, so it covers every route of both listeners and the 404 handler.
 */
export function installHttpMetrics(app: FastifyInstance, ctx: Ctx): void {
  const histogram = metricsOf(ctx).httpDuration;
  app.addHook('onResponse', (req, reply, done) => {
    histogram.observe(
      { method: methodLabel(req.method), route: routeLabel(req.routeOptions.url), status_class: statusClass(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
