import { loadCoordinatorConfig } from './config.ts';
import { ensurePrivateDir, keepNewFilesPrivate } from './lib/private-files.ts';
import { startCoordinator } from './server.ts';

/**
 * Production entry: a coordinator against external Postgres, NATS and S3 (see .env.example).
 * For one machine with zero configuration use embedded-main.ts (`npm start`).
 */
keepNewFilesPrivate();
const config = loadCoordinatorConfig();
// Local-disk blobs (no S3_BUCKET) or PGlite (no DATABASE_URL) keep their data under DATA_DIR.
if (!config.S3_BUCKET || !config.DATABASE_URL) ensurePrivateDir(config.DATA_DIR);
if (!config.NATS_URL) throw new Error('NATS_URL is required (or run the embedded default: npm start)');
// Agents hold credentials of their own (enrolled with one-use tokens an operator mints: docs/operators.md);
// ADMIN_TOKEN, when set, is the first operator's. Without it the operators already in the database log in.
if (!config.S3_BUCKET && !config.URL_SIGNING_SECRET) {
  throw new Error('URL_SIGNING_SECRET is required with local-disk blobs (no S3_BUCKET): a secret of its own');
}
const coordinator = await startCoordinator(
  config,
  { adminToken: config.ADMIN_TOKEN, urlSigningSecret: config.URL_SIGNING_SECRET },
  { natsUrl: config.NATS_URL },
);
if (config.AGENT_LISTEN_PORT === undefined && !['127.0.0.1', '::1', 'localhost'].includes(config.HOST)) {
  coordinator.ctx.logger.warn(
    { host: config.HOST },
    'the internal agent routes are served on the public listener: set AGENT_LISTEN_PORT (and point the agents COORDINATOR_URL at it) to serve them on a listener of their own',
  );
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => void coordinator.stop().then(() => process.exit(0)));
}
