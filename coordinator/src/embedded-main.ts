import { join } from 'node:path';
import { loadCoordinatorConfig } from './config.ts';
import { localAgentAuth, startAgentChild, type AgentChild } from './embedded/agent-children.ts';
import { startAuthenticatedNats, type NatsChild } from './embedded/nats-server.ts';
import { ensurePrivateDir, keepNewFilesPrivate } from './lib/private-files.ts';
import { loadOrCreateNatsSeeds, loadOrCreateSecrets } from './embedded/secrets.ts';
import { startCoordinator } from './server.ts';

/**
 * The embedded default (`npm start`): one machine, zero configuration. A nats-server child
 * with JetStream, PGlite and local-disk blobs under DATA_DIR, the coordinator, and
 * EMBEDDED_AGENTS render-agent children. Billing is off (jobs are created already paid) unless a
 * payment rail is configured.
 * Any of DATABASE_URL / NATS_URL / S3_BUCKET, when set, replaces its embedded part.
 */
keepNewFilesPrivate();
const config = loadCoordinatorConfig();
ensurePrivateDir(config.DATA_DIR);
const secrets = loadOrCreateSecrets(config.DATA_DIR, { adminToken: config.ADMIN_TOKEN, urlSigningSecret: config.URL_SIGNING_SECRET });
let nats: NatsChild | undefined;
// The embedded nats-server runs with authentication (docs/adr/0009): keys generated once into secrets.json.
const natsSeeds = config.NATS_URL ? undefined : loadOrCreateNatsSeeds(config.DATA_DIR);
if (natsSeeds) nats = await startAuthenticatedNats({ storeDir: join(config.DATA_DIR, 'nats'), seeds: natsSeeds });
const natsUrl = config.NATS_URL ?? nats!.url;
const coordinator = await startCoordinator(config, secrets, { natsUrl, ...(natsSeeds && { natsAuth: natsSeeds }) });
const agents: AgentChild[] = [];
const target = { coordinatorUrl: coordinator.agentUrl, natsUrl };
for (let i = 0; i < config.EMBEDDED_AGENTS; i++) {
  // Enrolled like any host (a one-use token the first time, its own credential file after that);
  // the agent listener when AGENT_LISTEN_PORT splits it off, else the one listener.
  const id = `embedded-agent-${i + 1}`;
  const auth = await localAgentAuth(coordinator.ctx, target, join(config.DATA_DIR, 'agents'), id);
  agents.push(startAgentChild({ id, coordinatorUrl: coordinator.agentUrl, natsUrl, auth }));
}

process.stdout.write(
  `\ncutroom is running at ${coordinator.url}\n` +
    `  API: ${coordinator.url}/api/v1   OpenAPI: ${coordinator.url}/openapi.json   health: ${coordinator.url}/health\n` +
    `  admin console: ${coordinator.url}/admin   operator token (${config.ADMIN_NAME}): ${config.ADMIN_TOKEN ? 'ADMIN_TOKEN' : `in ${join(config.DATA_DIR, 'secrets.json')} ("adminToken")`}\n` +
    `  data folder: ${config.DATA_DIR}   billing: ${config.billingEnabled ? `on (${[coordinator.ctx.billing.chain && 'chain', coordinator.ctx.billing.card && 'card'].filter(Boolean).join(' + ')})` : 'off (jobs are created already paid)'}\n\n`,
);

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(agents.map((a) => a.stop()));
  await coordinator.stop();
  await nats?.stop();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
