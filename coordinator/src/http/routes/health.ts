import type { FastifyInstance } from 'fastify';

export type HealthCheck = () => Promise<void>;

/**
 * GET /health: 200 when every dependency answers, 503 naming the ones that do not. Each check is
 * `ok` or `failing`; why one fails (driver messages carry host names, users, paths) goes to the
 * log, and into the answer only with `detail` (the agent listener, which is not public).
 */
export async function healthRoutes(app: FastifyInstance, opts: { checks: Record<string, HealthCheck>; version: string; detail?: boolean }): Promise<void> {
  app.get('/health', { schema: { hide: true } }, async (req, reply) => {
    const results: Record<string, string> = {};
    await Promise.all(
      Object.entries(opts.checks).map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, rej) => {
              timer = setTimeout(() => rej(new Error('timed out')), 3000);
            }),
          ]);
          results[name] = 'ok';
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          req.log.warn({ dependency: name, err: message }, 'health check failing');
          results[name] = opts.detail ? `failing: ${message}` : 'failing';
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const ok = Object.values(results).every((r) => r === 'ok');
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', version: opts.version, checks: results });
  });
}
