import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CreateSessionResponse, ErrorResponse, Session } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { createSession, describeSession, requireSession } from '../../sessions/session-service.ts';
import { bearerToken } from '../auth.ts';

export const sessionRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  const deps = { db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS };

  app.post('/sessions', {
    schema: {
      tags: ['sessions'],
      summary: 'Create an anonymous session (free)',
      description: 'Returns a session token to send as `Authorization: Bearer <session_token>`. The token is shown once; only its hash is stored.',
      response: { 201: CreateSessionResponse },
    },
  }, async (_req, reply) => reply.status(201).send(await createSession(deps)));

  app.get('/sessions/me', {
    schema: {
      tags: ['sessions'],
      summary: 'The session of the bearer token',
      security: [{ bearer: [] }],
      response: { 200: Session, 401: ErrorResponse },
    },
  }, async (req) => describeSession(deps, await requireSession(deps, bearerToken(req))));
};
