import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AGENT_ROUTES, AgentCapabilities, ClaimRequest, CompleteRequest, FailRequest, Fence, StageRequest } from '@cutroom/proto';
import type { Ctx } from '../../context.ts';
import { completeAttempt, failAttempt, heartbeat, reportStage } from '../../agents/attempts.ts';
import { claimJob } from '../../agents/claim.ts';
import { registerAgent } from '../../agents/register.ts';
import { AppError } from '../../lib/app-error.ts';
import { safeEqual } from '../../lib/tokens.ts';
import { bearerToken } from '../auth.ts';

/**
 * Internal routes for render-agents (proto/PROTOCOL.md). Authorized by the shared agent token;
 * hidden from the public OpenAPI document. A stale attempt answers 409 {error, stale: true}.
 */
export const agentRoutes: FastifyPluginAsyncZod<{ ctx: Ctx; agentToken: string }> = async (app, { ctx, agentToken }) => {
  app.addHook('onRequest', async (req) => {
    const token = bearerToken(req);
    if (!token || !safeEqual(token, agentToken)) throw new AppError('unauthenticated', 'invalid agent token');
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof AppError && err.code === 'stale_attempt') return reply.status(409).send({ v: 1, error: err.message, stale: true });
    throw err;
  });
  const hide = { hide: true };
  app.post(AGENT_ROUTES.register, { schema: { ...hide, body: AgentCapabilities } }, async (req) => {
    await registerAgent(ctx, req.body);
    return { v: 1, ok: true };
  });
  app.post(AGENT_ROUTES.claim, { schema: { ...hide, body: ClaimRequest } }, async (req) => claimJob(ctx, req.body));
  app.post(AGENT_ROUTES.heartbeat, { schema: { ...hide, body: Fence } }, async (req) => heartbeat(ctx, req.body));
  app.post(AGENT_ROUTES.stage, { schema: { ...hide, body: StageRequest } }, async (req) => {
    await reportStage(ctx, req.body);
    return { v: 1, ok: true };
  });
  app.post(AGENT_ROUTES.complete, { schema: { ...hide, body: CompleteRequest } }, async (req) => {
    await completeAttempt(ctx, req.body);
    return { v: 1, ok: true };
  });
  app.post(AGENT_ROUTES.fail, { schema: { ...hide, body: FailRequest } }, async (req) => {
    await failAttempt(ctx, req.body);
    return { v: 1, ok: true };
  });
};
