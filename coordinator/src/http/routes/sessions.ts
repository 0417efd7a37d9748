import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CreateSessionResponse, ErrorResponse, Session } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { createSessionCall, currentSessionCall } from '../../service/index.ts';
import { credentialsOf } from '../auth.ts';

export const sessionRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/sessions',
    {
      // Free, so limited per client IP; never replayed under an Idempotency-Key: an anonymous caller
      // has nothing that binds a stored token to it, so a replay could hand one caller another's session.
      config: { idempotency: false, limit: 'session_create' },
      schema: {
        tags: ['sessions'],
        summary: 'Create an anonymous session (free)',
        description:
          'Returns a session token to send as `Authorization: Bearer <session_token>`. The token is shown once; only its hash is stored. ' +
          'Every call creates a new session (an `Idempotency-Key` is ignored here). Limited per client IP (429 with Retry-After).',
        response: { 201: CreateSessionResponse },
      },
    },
    async (_req, reply) => reply.status(201).send(await createSessionCall(ctx)),
  );

  app.get(
    '/sessions/me',
    {
      schema: {
        tags: ['sessions'],
        summary: 'The session of the bearer token',
        security: [{ bearer: [] }],
        response: { 200: Session, 401: ErrorResponse },
      },
    },
    async (req) => currentSessionCall(ctx, credentialsOf(ctx, req)),
  );
};
