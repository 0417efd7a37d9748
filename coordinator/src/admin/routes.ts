import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeIP } from '@fastify/rate-limit';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { AppError } from '../lib/app-error.ts';
import { createLoginBackoff } from './login-backoff.ts';
import { type AdminRouter, adminRouter } from './router.ts';
import { cookieValue } from '../http/cookies.ts';
import { ADMIN_COOKIE, type AdminDeps, createAdminContext } from './trpc.ts';
import { logIn, logOut } from '../operators/index.ts';

/** Where `scripts/build-admin-console.sh` writes the console (index.html + assets/). */
export const DEFAULT_CONSOLE_DIR = resolve(fileURLToPath(import.meta.url), '../../../../admin-console/dist');

/** The console runs only its own script and styles, and talks only to this origin. */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/**
 * The operators' door: `POST /admin/api/login` ({token} → httpOnly cookie), `/admin/api/logout`,
 * the tRPC admin API at `/admin/trpc` (queries, mutations, and subscriptions over SSE), and the
 * console's static files at `/admin`. Nothing here is in the public OpenAPI document. The files
 * are three, named at build time, so they are served here rather than through a static plugin.
 */
export const adminRoutes: FastifyPluginAsync<AdminDeps & { consoleDir?: string | undefined }> = async (app, deps) => {
  const { ctx } = deps;
  // Hidden from /openapi.json and its fuzzing: tRPC's own routes included.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const secure = ctx.config.publicBaseUrl.startsWith('https:');

  const backoff = createLoginBackoff(ctx.clock);
  app.post('/admin/api/login', { config: { idempotency: false, limit: 'admin_login' } }, async (req, reply) => {
    const ip = normalizeIP(req.ip, 64);
    const wait = backoff.waitSeconds(ip);
    if (wait !== null)
      return reply
        .status(429)
        .header('retry-after', String(wait))
        .send({ error: `too many failed log-ins: retry in ${wait} s` });
    const body = z.object({ token: z.string().min(1).max(200) }).safeParse(req.body);
    if (!body.success) throw new AppError('invalid_request', 'body must be {"token": "<operator token>"}');
    const { sessionId, operator, expiresAt } = await logIn(ctx, body.data.token).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'unauthenticated') backoff.failed(ip);
      throw err;
    });
    backoff.succeeded(ip);
    reply.header('set-cookie', cookie(sessionId, expiresAt, secure));
    return { name: operator.name, expires_at: expiresAt.toISOString() };
  });
  app.post('/admin/api/logout', { config: { idempotency: false } }, async (req, reply) => {
    const session = cookieValue(req.headers.cookie, ADMIN_COOKIE);
    if (session) await logOut(ctx, session);
    reply.header('set-cookie', cookie('', new Date(0), secure));
    return { ok: true };
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: '/admin/trpc',
    trpcOptions: {
      router: adminRouter,
      createContext: createAdminContext(deps),
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') ctx.logger.error({ err: error.cause?.message ?? error.message, path }, 'admin API error');
      },
    } satisfies FastifyTRPCPluginOptions<AdminRouter>['trpcOptions'],
  });

  const dir = deps.consoleDir ?? DEFAULT_CONSOLE_DIR;
  const page = (reply: FastifyReply) => {
    const index = join(dir, 'index.html');
    reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', 'no-cache');
    if (!existsSync(index))
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The admin console is not built: run `bash scripts/build-admin-console.sh` (npm start does it).');
    return reply.type('text/html; charset=utf-8').send(readFileSync(index));
  };
  app.get('/admin', async (_req, reply) => page(reply));
  app.get('/admin/assets/:name', async (req, reply) => {
    const { name } = req.params as { name: string };
    const ext = /^[A-Za-z0-9][\w.-]*(\.[a-z]+)$/.exec(name)?.[1];
    const file = join(dir, 'assets', name);
    if (!ext || !ASSET_TYPES[ext] || !existsSync(file)) throw new AppError('not_found', 'no such asset');
    reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', 'public, max-age=300');
    return reply.type(ASSET_TYPES[ext]).send(readFileSync(file));
  });
  // The console's own paths (/admin/jobs/…) are client-side routes: the same page.
  app.get('/admin/*', async (_req, reply) => page(reply));
};

function cookie(value: string, expires: Date, secure: boolean): string {
  return `${ADMIN_COOKIE}=${encodeURIComponent(value)}; Path=/admin; HttpOnly; SameSite=Strict; Expires=${expires.toUTCString()}${secure ? '; Secure' : ''}`;
}
