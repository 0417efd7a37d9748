import { loadCoordinatorConfig } from './config.ts';
import { startCoordinator } from './server.ts';

/**
 * Production entry: a coordinator against external Postgres, NATS and S3 (see .env.example).
 * For one machine with zero configuration use embedded-main.ts (`npm start`).
 */
const config = loadCoordinatorConfig();
if (!config.NATS_URL) throw new Error('NATS_URL is required (or run the embedded default: npm start)');
if (!config.AGENT_TOKEN) throw new Error('AGENT_TOKEN is required: the shared secret render-agents present');
const coordinator = await startCoordinator(
  config,
  { agentToken: config.AGENT_TOKEN, urlSigningSecret: config.URL_SIGNING_SECRET ?? config.AGENT_TOKEN },
  { natsUrl: config.NATS_URL },
);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => void coordinator.stop().then(() => process.exit(0)));
}
