import fastifyHelmet from '@fastify/helmet';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { TrustProxy } from './config.ts';
import type { Ctx } from './context.ts';
import { installDeclaredResponses } from './http/declared-responses.ts';
import { answerClientError, answerFrameworkError, installErrorHandler } from './http/error-handler.ts';
import { installIdempotency } from './http/idempotency.ts';
import { installRateLimits } from './http/rate-limit.ts';
import { HELMET_OPTIONS } from './http/security-headers.ts';
import { installTextGuard } from './http/text-guard.ts';
import { agentRoutes } from './http/routes/agents.ts';
import { discoveryRoutes } from './http/routes/discovery.ts';
import { annotatePaidOperations } from './payments/discovery.ts';
import { healthRoutes, type HealthCheck } from './http/routes/health.ts';
import { metricsRoutes } from './http/routes/metrics.ts';
import { installHttpMetrics } from './metrics/http.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { derivativeRoutes } from './http/routes/derivatives.ts';
import { eventRoutes } from './http/routes/events.ts';
import { outputRoutes } from './http/routes/outputs.ts';
import { paymentRoutes } from './http/routes/payments.ts';
import { sessionRoutes } from './http/routes/sessions.ts';
import { connectionRoutes } from './http/routes/connections.ts';
import { consentRoutes } from './http/routes/consent.ts';
import type { LocalBlobStore } from './storage/local-blob-store.ts';
import { registerLocalBlobRoutes } from './storage/local-blob-routes.ts';
import { jobBlobWriteCheck } from './jobs/blob-write-guard.ts';
import { mcpRoutes } from './mcp/route.ts';
import { adminRoutes } from './admin/routes.ts';
import type { EnrollTarget } from './operators/enrollment.ts';

import { SERVICE_VERSION } from './version.ts';

export { SERVICE_VERSION };

export interface AppDeps {
  ctx: Ctx;
  /** Where new hosts reach the farm (the enrollment command shows it). @default the public URL and NATS_URL */
  enrollTarget?: () => EnrollTarget;
  /** The built admin console. @default admin-console/dist */
  adminConsoleDir?: string;
  /** Present when blobs live on local disk: the coordinator serves their signed URLs. */
  localBlobs?: LocalBlobStore;
  healthChecks: Record<string, HealthCheck>;
  /**
   * `here` (default): the internal agent routes are served beside the public API. `elsewhere`:
   * they are not (AGENT_LISTEN_PORT: buildAgentApp serves them on their own listener).
   */
  agentRoutes?: 'here' | 'elsewhere';
}

/** TRUST_PROXY as fastify takes it (a hop count as the function fastify itself would build from it). */
function trustProxyOption(t: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}

/** One fastify instance with the settings both listeners share: logger, timeouts, proxy trust, {error} shapes. */
function baseApp(ctx: Ctx): FastifyInstance {
  const app = Fastify({
    // pino's Logger and fastify's FastifyBaseLogger differ only in optional typing details.
    loggerInstance: ctx.logger as unknown as FastifyBaseLogger,
    // JSON bodies are small (the largest, an edit transcript, is capped at 256 KB).
    bodyLimit: 1024 * 1024,
    // Off unless configured: X-Forwarded-* from anyone else would let a caller pick its own IP.
    trustProxy: trustProxyOption(ctx.config.TRUST_PROXY),
    // An idle connection is closed; a whole request (headers and body) must arrive in time (408).
    connectionTimeout: ctx.config.HTTP_CONNECTION_TIMEOUT_MS,
    requestTimeout: ctx.config.HTTP_REQUEST_TIMEOUT_MS,
    // Router and connection errors answer the spec's {error} (an over-long path parameter is a 400, not a 414).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // A line per request only at debug level (below): at info a busy service logs what happened, not every call.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('onRequest', async (request) => {
    request.log.debug({ req: request }, 'incoming request');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug({ res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installHttpMetrics(app, ctx);
  return app;
}

/** Registers every public route; never listens (tests use app.inject or listen themselves). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps.ctx;
  const app = baseApp(deps.ctx);
  installDeclaredResponses(app);
  await app.register(fastifyHelmet, { global: true, ...HELMET_OPTIONS });
  await installRateLimits(app, {
    windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
    sessionsPerIp: config.RATE_LIMIT_SESSIONS_PER_IP,
    perSession: config.RATE_LIMIT_PER_SESSION,
    perIp: config.RATE_LIMIT_PER_IP,
  });
  installTextGuard(app); // before idempotency: a refused request is never stored as an answer
  installIdempotency(app, {
    db: deps.ctx.db,
    clock: deps.ctx.clock,
    ttlMs: config.IDEMPOTENCY_TTL_HOURS * 3600_000,
    lockMs: config.IDEMPOTENCY_LOCK_SECONDS * 1000,
    challengeTtlMs: config.PAYMENT_CHALLENGE_TTL_SECONDS * 1000,
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'cutroom',
        version: SERVICE_VERSION,
        description:
          'Pay-per-job audio/video post-production: transcripts (SRT, VTT, TXT, word-level JSON) and more. No account: create a session, create a job, upload, poll, download.',
      },
      servers: [{ url: deps.ctx.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'session_token from POST /api/v1/sessions' },
          payment: {
            type: 'http',
            scheme: 'Payment',
            description: 'Machine Payments Protocol credential answering a 402 challenge (draft-ryan-httpauth-payment); see /.well-known/mpp.json',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    // Payment metadata is added to the generated document, never written by hand.
    transformObject: (documentObject) => {
      const doc = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      annotatePaidOperations(doc as Parameters<typeof annotatePaidOperations>[0], deps.ctx.billing);
      return doc;
    },
  });

  await app.register(sessionRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(jobRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(derivativeRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(eventRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(outputRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(connectionRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(consentRoutes, { prefix: '/api/v1', ctx: deps.ctx });
  await app.register(paymentRoutes, { ctx: deps.ctx });
  await app.register(mcpRoutes, { ctx: deps.ctx });
  if (deps.agentRoutes !== 'elsewhere') await app.register(agentRoutes, { ctx: deps.ctx });
  await app.register(adminRoutes, {
    ctx: deps.ctx,
    enrollTarget: deps.enrollTarget ?? (() => ({ coordinatorUrl: config.publicBaseUrl, natsUrl: config.NATS_URL ?? 'nats://<nats host>:4222' })),
    consoleDir: deps.adminConsoleDir,
  });
  await app.register(discoveryRoutes, { config: deps.ctx.config, billing: deps.ctx.billing });
  await app.register(healthRoutes, { checks: deps.healthChecks, version: SERVICE_VERSION });
  await app.register(metricsRoutes, { ctx: deps.ctx, listener: 'public' });
  // The local PUT route asks the job side whether a write still has a purpose (upload while uploading, outputs of the current attempt).
  if (deps.localBlobs) registerLocalBlobRoutes(app, deps.localBlobs, { acceptsWrite: jobBlobWriteCheck(deps.ctx.db) });
  return app;
}

/**
 * The agent listener (AGENT_LISTEN_PORT): the internal agent routes only, and /health with the
 * reason a dependency fails. Meant for the workers' network, never published.
 */
export async function buildAgentApp(deps: Pick<AppDeps, 'ctx' | 'healthChecks'>): Promise<FastifyInstance> {
  const app = baseApp(deps.ctx);
  installTextGuard(app);
  await app.register(agentRoutes, { ctx: deps.ctx });
  await app.register(healthRoutes, { checks: deps.healthChecks, version: SERVICE_VERSION, detail: true });
  await app.register(metricsRoutes, { ctx: deps.ctx, listener: 'agent' });
  return app;
}
