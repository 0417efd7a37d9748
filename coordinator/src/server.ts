import type { FastifyInstance } from 'fastify';
import { cancelSubject } from '@cutroom/proto';
import { buildApp } from './app.ts';
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
import { createBilling } from './payments/billing.ts';
import { join } from 'node:path';

export interface RunningCoordinator {
  app: FastifyInstance;
  ctx: Ctx;
  url: string;
  stop(): Promise<void>;
}

/**
 * Wires one coordinator from its config: database (migrated), blob store, NATS + the work
 * stream, outbox relay, progress intake, sweeper, HTTP. The same function serves production
 * (main.ts), the embedded default and the integration tests.
 */
export async function startCoordinator(
  config: CoordinatorConfig,
  secrets: { agentToken: string; urlSigningSecret: string },
  opts: { natsUrl: string; clock?: Clock; logger?: Logger },
): Promise<RunningCoordinator> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock = opts.clock ?? systemClock;
  const database = await openDatabase({ url: config.DATABASE_URL, pgliteDir: join(config.DATA_DIR, 'pg') });
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
    local: {
      dataDir: config.DATA_DIR,
      publicBaseUrl: config.publicBaseUrl,
      signingSecret: secrets.urlSigningSecret,
      maxUploadBytes: config.UPLOAD_MAX_BYTES,
      clock: () => clock.now().getTime(),
    },
  });
  await blobs.ensureReady();
  const nc = await connectNats(opts.natsUrl, 'cutroom-coordinator');
  await ensureWorkStream(nc, { ackWaitMs: Math.max(config.LEASE_MS * 2, 60_000) });

  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  const ctx: Ctx = {
    db: database.db,
    blobs,
    clock,
    config,
    logger,
    billing: createBilling(config, clock),
    notifyOutbox: () => relay?.notify(),
    cancelAttempt: (attemptId) => nc.publish(cancelSubject(attemptId)),
  };
  relay = startOutboxRelay({ db: database.db, nc, clock, logger });
  const progress = startProgressIntake({ db: database.db, nc, logger });
  const sweeper = startSweeper(ctx);

  const app = await buildApp({
    ctx,
    agentToken: secrets.agentToken,
    localBlobs: blobs instanceof LocalBlobStore ? blobs : undefined,
    healthChecks: {
      database: () => database.ping(),
      nats: async () => {
        await nc.flush();
      },
      storage: async () => {
        await blobs.head('health/probe');
      },
    },
  });
  await app.listen({ port: config.PORT, host: config.HOST });
  const url = config.publicBaseUrl;
  logger.info({ url, database: database.kind, storage: blobs.kind }, 'coordinator listening');

  return {
    app,
    ctx,
    url,
    async stop() {
      await app.close();
      await sweeper.stop();
      await progress.stop();
      await relay?.stop();
      await nc.drain().catch(() => nc.close());
      await database.close();
    },
  };
}
