import type { FastifyInstance } from 'fastify';
import { buildAgentApp, buildApp } from './app.ts';
import type { CoordinatorConfig } from './config.ts';
import type { Ctx } from './context.ts';
import { openDatabase } from './db/database.ts';
import { connectNats, ensureWorkStream } from './dispatch/nats-setup.ts';
import { startOutboxRelay } from './dispatch/outbox-relay.ts';
import { startProgressIntake } from './dispatch/progress-intake.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { createBlobStore } from './storage/create-blob-store.ts';
import { LocalBlobStore } from './storage/local-blob-store.ts';
import { startSweeper } from './sweeper/sweeper.ts';
import { ensureBootstrapOperator } from './operators/operator-auth.ts';
import { type StepWorker, startStepWorker } from './durable/step-worker.ts';
import { compositeRuns } from './composites/steps.ts';
import { publishRuns } from './publishing/publish-worker.ts';
import { createBilling } from './payments/billing.ts';
import { join } from 'node:path';
import { startCancelPublisher } from './dispatch/cancel-publisher.ts';
import { createNatsAuthority, serviceAuthenticator } from './nats-auth/authority.ts';
import { natsAuthSeedsOf } from './nats-auth/config.ts';
import type { NatsAuthSeeds } from './nats-auth/keys.ts';

export interface RunningCoordinator {
  app: FastifyInstance;
  /** The agent listener (AGENT_LISTEN_PORT set), serving the internal agent routes; else undefined. */
  agentApp?: FastifyInstance;
  ctx: Ctx;
  /** Where callers reach the public API (PUBLIC_BASE_URL). */
  url: string;
  /** What render-agents use as COORDINATOR_URL: the agent listener when split, else `url`. */
  agentUrl: string;
  stop(): Promise<void>;
}

/**
 * Wires one coordinator from its config: database (migrated), blob store, NATS + the work
 * stream, outbox relay, progress intake, sweeper, HTTP. The same function serves production
 * (main.ts), the embedded default and the integration tests.
 */
export async function startCoordinator(
  config: CoordinatorConfig,
  /** The first operator's token (ADMIN_TOKEN), and the URL-signing secret of local-disk blobs (its own secret; not needed with S3). */
  secrets: { adminToken?: string | undefined; urlSigningSecret?: string | undefined },
  /** `natsAuth`: the embedded default's generated seeds; otherwise they come from the config. */
  opts: { natsUrl: string; natsAuth?: NatsAuthSeeds; clock?: Clock; logger?: Logger },
): Promise<RunningCoordinator> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock = opts.clock ?? systemClock;
  if (!config.S3_BUCKET && !secrets.urlSigningSecret) throw new Error('URL_SIGNING_SECRET is required with local-disk blobs (no S3_BUCKET)');
  if (secrets.urlSigningSecret && secrets.urlSigningSecret === secrets.adminToken) {
    throw new Error('the URL-signing secret must not be the admin token: set URL_SIGNING_SECRET to a secret of its own');
  }
  const database = await openDatabase({ url: config.DATABASE_URL, pgliteDir: join(config.DATA_DIR, 'pg'), statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS });
  const blobs = createBlobStore({
    s3: config.S3_BUCKET
      ? {
          endpoint: config.S3_ENDPOINT,
          region: config.S3_REGION,
          bucket: config.S3_BUCKET,
          accessKeyId: config.S3_ACCESS_KEY_ID,
          secretAccessKey: config.S3_SECRET_ACCESS_KEY,
          forcePathStyle: config.S3_FORCE_PATH_STYLE,
          publicEndpoint: config.S3_PUBLIC_ENDPOINT,
        }
      : null,
    local: secrets.urlSigningSecret
      ? {
          dataDir: config.DATA_DIR,
          publicBaseUrl: config.publicBaseUrl,
          signingSecret: secrets.urlSigningSecret,
          maxUploadBytes: config.UPLOAD_MAX_BYTES,
          clock: () => clock.now().getTime(),
        }
      : null,
  });
  await blobs.ensureReady();
  const seeds = natsAuthSeedsOf(config, opts.natsAuth);
  const natsAuth = seeds ? createNatsAuthority(seeds, { db: database.db, natsUrl: opts.natsUrl, logger }) : null;
  if (!natsAuth)
    logger.warn('NATS_AUTH=none: agents connect to NATS without credentials and any client of the server can take or forge work (development only)');
  const nc = await connectNats(opts.natsUrl, 'cutroom-coordinator', natsAuth ? await serviceAuthenticator(natsAuth.keys) : undefined, () => {
    // A restarted server may have loaded an older account (its preload): push the revocations again.
    natsAuth?.pushAccount().catch((err: unknown) => logger.error({ err }, 'pushing the NATS account after a reconnect failed'));
  });
  // Revocations recorded while the servers could not be told take effect now.
  await natsAuth?.pushAccount();
  await ensureWorkStream(nc, { ackWaitMs: Math.max(config.LEASE_MS * 2, 60_000), replicas: config.NATS_STREAM_REPLICAS });

  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  let steps: StepWorker | undefined;
  const cancels = startCancelPublisher({ db: database.db, nc, logger });
  const ctx: Ctx = {
    db: database.db,
    blobs,
    clock,
    config,
    logger,
    billing: createBilling(config, clock, database.db),
    notifyOutbox: () => relay?.notify(),
    nudgeSteps: () => steps?.nudge(),
    cancelAttempt: (attemptId) => cancels.cancel(attemptId),
    natsAuth,
  };
  relay = startOutboxRelay({
    db: database.db,
    nc,
    clock,
    logger,
    ackWaitMs: Math.max(config.LEASE_MS * 2, 60_000),
    streamReplicas: config.NATS_STREAM_REPLICAS,
  });
  const progress = startProgressIntake({ db: database.db, nc, logger });
  const sweeper = startSweeper(ctx);

  const healthChecks = {
    database: () => database.ping(),
    nats: async () => {
      await nc.flush();
    },
    storage: async () => {
      await blobs.head('health/probe');
    },
  };
  await ensureBootstrapOperator(ctx, secrets.adminToken);
  const split = config.AGENT_LISTEN_PORT !== undefined;
  let agentUrl = config.publicBaseUrl;
  const app = await buildApp({
    ctx,
    enrollTarget: () => ({ coordinatorUrl: config.AGENT_PUBLIC_URL ?? agentUrl, natsUrl: config.AGENT_NATS_URL ?? opts.natsUrl }),
    localBlobs: blobs instanceof LocalBlobStore ? blobs : undefined,
    healthChecks,
    agentRoutes: split ? 'elsewhere' : 'here',
  });
  await app.listen({ port: config.PORT, host: config.HOST });
  const url = config.publicBaseUrl;
  let agentApp: FastifyInstance | undefined;
  if (split) {
    agentApp = await buildAgentApp({ ctx, healthChecks });
    await agentApp.listen({ port: config.AGENT_LISTEN_PORT, host: config.AGENT_LISTEN_HOST });
    agentUrl = listenerUrl(config.AGENT_LISTEN_HOST, agentApp);
  }
  // After listen: with local-disk blobs the worker reads sources through this server's signed URLs.
  steps = startStepWorker(
    ctx,
    [
      compositeRuns(),
      publishRuns({
        chunkBytes: config.PUBLISH_CHUNK_BYTES,
        leaseMs: config.PUBLISH_LEASE_SECONDS * 1000,
        maxAttempts: config.PUBLISH_MAX_ATTEMPTS,
        quotaMaxWaitMs: config.PUBLISH_QUOTA_MAX_WAIT_HOURS * 3600_000,
      }),
    ],
    { pollMs: config.PUBLISH_POLL_MS },
  );
  logger.info({ url, agent_url: agentUrl, database: database.kind, storage: blobs.kind }, 'coordinator listening');

  return {
    app,
    agentApp,
    ctx,
    url,
    agentUrl,
    async stop() {
      await steps?.stop();
      await app.close();
      await agentApp?.close();
      await sweeper.stop();
      await progress.stop();
      await relay?.stop();
      await cancels.stop();
      await nc.drain().catch(() => nc.close());
      await database.close();
    },
  };
}

/** http://host:port of a listening app (a wildcard host is reached on loopback; port 0 resolved). */
function listenerUrl(host: string, app: FastifyInstance): string {
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}
