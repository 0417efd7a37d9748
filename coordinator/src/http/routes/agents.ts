import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AGENT_ROUTES,
  AgentCapabilities,
  ClaimRequest,
  CompleteRequest,
  EnrollRequest,
  FailRequest,
  Fence,
  NatsCredentialRequest,
  StageRequest,
} from '@cutroom/proto';
import type { Ctx } from '../../context.ts';
import { AppError } from '../../lib/app-error.ts';
import { bearerToken } from '../auth.ts';
import {
  type AgentIdentity,
  authenticateAgent,
  claimJob,
  completeAttempt,
  enrollAgent,
  failAttempt,
  heartbeat,
  natsCredential,
  registerAgent,
  reportStage,
  rotateCredential,
} from '../../agents/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    agentIdentity?: AgentIdentity;
  }
}

/**
 * Internal routes for render-agents (proto/PROTOCOL.md), hidden from the public OpenAPI document.
 * Every route but enrollment takes the agent's own credential (`cra_…`, operators/enrollment.ts),
 * and a body naming another agent is refused: one host cannot act as another. Enrollment takes a
 * one-use enrollment token instead. A stale attempt answers 409 {error, stale: true}.
 */
export const agentRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.url === AGENT_ROUTES.enroll) return;
    const token = bearerToken(req);
    const identity = token ? await authenticateAgent(ctx, token) : null;
    if (!identity) throw new AppError('unauthenticated', 'unknown, revoked or expired agent credential (enroll the host again)');
    req.agentIdentity = identity;
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof AppError && err.code === 'stale_attempt') return reply.status(409).send({ v: 1, error: err.message, stale: true });
    throw err;
  });
  const hide = { hide: true };
  /** The body's agent_id must be the credential's agent. */
  const same = (req: { agentIdentity?: AgentIdentity }, agentId: string) => {
    if (req.agentIdentity?.agentId !== agentId)
      throw new AppError('forbidden', `this credential belongs to agent ${req.agentIdentity?.agentId}, not ${agentId}`);
  };
  app.post(AGENT_ROUTES.enroll, { schema: { ...hide, body: EnrollRequest } }, async (req) => {
    const token = bearerToken(req);
    if (!token) throw new AppError('unauthenticated', 'enrollment needs Authorization: Bearer <enrollment token>');
    return enrollAgent(ctx, token, req.body);
  });
  app.post(AGENT_ROUTES.rotate, { schema: hide }, async (req) => {
    const id = req.agentIdentity!;
    return rotateCredential(ctx, id.agentId, id.credentialId);
  });
  app.post(AGENT_ROUTES.register, { schema: { ...hide, body: AgentCapabilities } }, async (req) => {
    same(req, req.body.agent_id);
    return registerAgent(ctx, req.body);
  });
  app.post(AGENT_ROUTES.natsCredential, { schema: { ...hide, body: NatsCredentialRequest } }, async (req) => {
    same(req, req.body.agent_id);
    return natsCredential(ctx, req.body);
  });
  app.post(AGENT_ROUTES.claim, { schema: { ...hide, body: ClaimRequest } }, async (req) => {
    same(req, req.body.agent_id);
    return claimJob(ctx, req.body);
  });
  app.post(AGENT_ROUTES.heartbeat, { schema: { ...hide, body: Fence } }, async (req) => {
    same(req, req.body.agent_id);
    return heartbeat(ctx, req.body);
  });
  app.post(AGENT_ROUTES.stage, { schema: { ...hide, body: StageRequest } }, async (req) => {
    same(req, req.body.agent_id);
    await reportStage(ctx, req.body);
    return { v: 1, ok: true };
  });
  app.post(AGENT_ROUTES.complete, { schema: { ...hide, body: CompleteRequest } }, async (req) => {
    same(req, req.body.agent_id);
    await completeAttempt(ctx, req.body);
    return { v: 1, ok: true };
  });
  app.post(AGENT_ROUTES.fail, { schema: { ...hide, body: FailRequest } }, async (req) => {
    same(req, req.body.agent_id);
    await failAttempt(ctx, req.body);
    return { v: 1, ok: true };
  });
};
