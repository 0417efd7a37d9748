import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { createEngineCtx, type EngineCtx } from './engine-ctx.ts';

/** The whole public app on the PGlite engine context, for app.inject tests; close() ends both. */
export async function startTestApp(): Promise<{ ctx: EngineCtx; app: FastifyInstance; close(): Promise<void> }> {
  const ctx = await createEngineCtx();
  const app = await buildApp({ ctx, healthChecks: {} });
  return {
    ctx,
    app,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}
