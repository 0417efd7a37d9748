import type { FastifyInstance } from 'fastify';

export type HealthCheck = () => Promise<void>;

/** GET /health: 200 when every dependency answers, 503 naming the ones that do not. */
export async function healthRoutes(app: FastifyInstance, opts: { checks: Record<string, HealthCheck>; version: string }): Promise<void> {
  app.get('/health', { schema: { hide: true } }, async (_req, reply) => {
    const results: Record<string, 'ok' | string> = {};
    await Promise.all(
      Object.entries(opts.checks).map(async ([name, check]) => {
        try {
          await Promise.race([check(), new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 3000))]);
          results[name] = 'ok';
        } catch (err) {
          results[name] = `failing: ${err instanceof Error ? err.message : String(err)}`;
        }
      }),
    );
    const ok = Object.values(results).every((r) => r === 'ok');
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', version: opts.version, checks: results });
  });
}
