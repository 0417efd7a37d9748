import type { Session } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import { createSession, describeSession } from '../sessions/session-service.ts';
import { sessionOf } from './caller.ts';
import type { Credentials } from './credentials.ts';

const deps = (ctx: Ctx) => ({ db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS });

/** A new anonymous session; its token is shown once. */
export const createSessionCall = (ctx: Ctx) => createSession(deps(ctx));

/** The caller's session. */
export async function currentSessionCall(ctx: Ctx, creds: Credentials): Promise<Session> {
  return describeSession(deps(ctx), await sessionOf(ctx, creds));
}
