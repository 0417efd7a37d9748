import { initTRPC, TRPCError } from '@trpc/server';
import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { bearerToken } from '../http/auth.ts';
import { cookieValue } from '../http/cookies.ts';
import { AppError } from '../lib/app-error.ts';
import { type EnrollTarget, type Operator, operatorBySession, operatorByToken } from '../operators/index.ts';

/** The console's log-in cookie (httpOnly, SameSite=Strict, Path=/admin). */
export const ADMIN_COOKIE = 'cutroom_admin';

export interface AdminDeps {
  ctx: Ctx;
  /** Where new hosts reach the farm (known once the listeners are up). */
  enrollTarget: () => EnrollTarget;
}

export interface AdminContext extends AdminDeps {
  operator: Operator | null;
}

/**
 * The operator behind a request: an operator token as Bearer (scripts), or the console's session
 * cookie. A caller's session token (`crs_…`) is no operator token: it authenticates nobody here.
 */
export async function operatorOf(ctx: Ctx, req: FastifyRequest): Promise<Operator | null> {
  const bearer = bearerToken(req);
  if (bearer) return operatorByToken(ctx, bearer);
  const session = cookieValue(req.headers.cookie, ADMIN_COOKIE);
  return session ? operatorBySession(ctx, session) : null;
}

export const createAdminContext =
  (deps: AdminDeps) =>
  async ({ req }: CreateFastifyContextOptions): Promise<AdminContext> => ({ ...deps, operator: await operatorOf(deps.ctx, req) });

const TRPC_CODE: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

const t = initTRPC.context<AdminContext>().create({
  // Live views idle for minutes must outlive the server's idle-connection timeout and proxies':
  // a comment every 15 s keeps them open; a client that hears nothing for 45 s reconnects.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 45_000 } },
  // The service layer's refusals keep their message and code; anything else is an internal error without details.
  errorFormatter({ shape, error }) {
    const app = error.cause instanceof AppError ? error.cause : null;
    return { ...shape, data: { ...shape.data, app_code: app?.code ?? null, stack: undefined } };
  },
});

export const router = t.router;

/** Every admin procedure: an operator must be logged in; AppErrors become tRPC errors with their HTTP meaning. */
export const operatorProcedure = t.procedure.use(async ({ ctx, next }) => {
  if (!ctx.operator) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'log in with an operator token' });
  const result = await next({ ctx: { ...ctx, operator: ctx.operator } });
  // A resolver's throw comes back as a failed result wrapping it: a service refusal keeps its meaning.
  if (!result.ok && result.error.cause instanceof AppError) throw toTrpcError(result.error.cause);
  return result;
});

export function toTrpcError(err: unknown): unknown {
  if (err instanceof AppError) return new TRPCError({ code: TRPC_CODE[err.status] ?? 'INTERNAL_SERVER_ERROR', message: err.message, cause: err });
  return err;
}
