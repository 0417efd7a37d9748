import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCoordinatorConfig } from '../../coordinator/src/config.ts';
import { startAgentChild, type AgentChild } from '../../coordinator/src/embedded/agent-children.ts';
import { startCoordinator, type RunningCoordinator } from '../../coordinator/src/server.ts';
import { freePort, startNats, startPostgres, startS3, type NatsFixture, type PostgresFixture, type S3Fixture } from '../fixtures/index.ts';
import { apiClient, type ApiClient } from './api.ts';

export interface Stack {
  coordinator: RunningCoordinator;
  api: ApiClient;
  natsUrl: string;
  agentToken: string;
  agents: AgentChild[];
  s3?: S3Fixture;
  startAgent(id: string): AgentChild;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** 's3' (MinIO) or 'local' (coordinator-served disk). @default 's3' */
  storage?: 's3' | 'local';
  /** Agents to start at once. @default 1 */
  agents?: number;
  leaseMs?: number;
  sweepMs?: number;
}

/**
 * The whole system on real parts: Postgres, nats-server with JetStream, MinIO, the coordinator
 * (in this process, so tests can read its database) and render-agents as child processes.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cutroom-stack-'));
  const [pg, nats, s3] = await Promise.all([
    startPostgres(), startNats(), opts.storage === 'local' ? Promise.resolve(undefined) : startS3(),
  ]) as [PostgresFixture, NatsFixture, S3Fixture | undefined];
  const port = await freePort();
  const agentToken = 'test-agent-token-0123456789';
  const config = loadCoordinatorConfig({
    PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: pg.url, NATS_URL: nats.url,
    LEASE_MS: String(opts.leaseMs ?? 30_000), SWEEP_INTERVAL_MS: String(opts.sweepMs ?? 1000), LOG_LEVEL: 'warn',
    ...(s3 ? { S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket, S3_REGION: s3.region, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey } : {}),
  });
  const coordinator = await startCoordinator(config, { agentToken, urlSigningSecret: 'test-url-signing-secret-0123' }, { natsUrl: nats.url });
  const agents: AgentChild[] = [];
  const startAgent = (id: string) => {
    const a = startAgentChild({ id, coordinatorUrl: coordinator.url, natsUrl: nats.url, agentToken, env: { LOG_LEVEL: 'warn' } });
    agents.push(a);
    return a;
  };
  for (let i = 0; i < (opts.agents ?? 1); i++) startAgent(`test-agent-${i + 1}`);
  return {
    coordinator, api: apiClient(coordinator.url), natsUrl: nats.url, agentToken, agents, s3, startAgent,
    async stop() {
      await Promise.all(agents.map((a) => a.stop()));
      await coordinator.stop();
      await Promise.all([pg.stop(), nats.stop(), s3?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

