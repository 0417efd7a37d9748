import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsAuthSeeds } from '../../coordinator/src/nats-auth/keys.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCoordinatorConfig } from '../../coordinator/src/config.ts';
import { localAgentAuth, startAgentChild, type AgentChild, type AgentChildAuth } from '../../coordinator/src/embedded/agent-children.ts';
import { enrolledAgentToken } from '../../coordinator/src/testing/agent-credential.ts';
import { startCoordinator, type RunningCoordinator } from '../../coordinator/src/server.ts';
import { freePort, startNats, startPostgres, startS3, type NatsFixture, type PostgresFixture, type S3Fixture } from '../fixtures/index.ts';
import { apiClient, type ApiClient } from './api.ts';
import { sharedBucket, sharedDatabase } from '../fixtures/shared-services.ts';
import { startAnvil, type AnvilAccount, type AnvilFixture } from '../fixtures/anvil.ts';
import { deployTestUsdc, mintUsdc } from '../fixtures/test-usdc.ts';
import { startStripeFake, type StripeFake } from '../fakes/stripe/index.ts';
import { startVideoHostFake, type VideoHostFake } from '../fakes/video-host/index.ts';

/** A local chain with the EIP-3009 test token (payer funded) and the stateful card processor fake. */
async function startBilling(): Promise<BillingFixture> {
  const [anvil, stripe] = await Promise.all([startAnvil(), startStripeFake()]);
  const [owner, relayer, payer] = anvil.accounts as [AnvilAccount, AnvilAccount, AnvilAccount];
  const { address: token } = await deployTestUsdc(anvil.rpcUrl, owner.privateKey);
  await mintUsdc(anvil.rpcUrl, owner.privateKey, token, payer.address, 100_000_000n);
  return { anvil, token, relayer, payer, stripe, webhookSecret: 'whsec_test_cutroom_0123456789', challengeSecret: 'test-challenge-secret-0123456789abcdef' };
}

export interface Stack {
  billing?: BillingFixture;
  /** The video host fake the coordinator publishes to (`videoHost: true`). */
  videoHost?: VideoHostFake;
  coordinator: RunningCoordinator;
  /** The settings the stack's coordinator was started with: another coordinator process (a replica) starts from them. */
  coordinatorEnv: Record<string, string>;
  api: ApiClient;
  natsUrl: string;
  /** A NATS connection as a service-account user (every permission), for tests that look at the stream. */
  connectNats(): Promise<NatsConnection>;
  /** The seeds the stack's nats-server trusts. */
  natsAuth: NatsAuthSeeds;
  /** The first operator's token (the admin API and console). */
  adminToken: string;
  agents: AgentChild[];
  s3?: S3Fixture;
  /** Starts an agent process enrolled the way a host is (a one-use token minted by the system operator). */
  startAgent(id: string, opts?: { tags?: string[]; env?: Record<string, string> }): Promise<AgentChild>;
  /** How a test-started agent proves who it is (a fresh enrollment token, a credential file in the stack's folder). */
  agentAuth(id: string, tags?: string[]): Promise<AgentChildAuth>;
  /** Enrolls `id` and answers its own credential (for tests that call the agent routes themselves). */
  agentCredential(id: string, tags?: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface BillingFixture {
  anvil: AnvilFixture;
  token: `0x${string}`;
  /** anvil accounts[1]: relayer and recipient. */
  relayer: AnvilAccount;
  /** anvil accounts[2], funded with 100 test USDC. */
  payer: AnvilAccount;
  stripe: StripeFake;
  webhookSecret: string;
  challengeSecret: string;
}

export interface StackOptions {
  /** Start a local chain with the test token and the card processor fake, and turn billing on. */
  billing?: boolean;
  /** 's3' (MinIO) or 'local' (coordinator-served disk). @default 's3' */
  storage?: 's3' | 'local';
  /** Agents to start at once. @default 1 */
  agents?: number;
  leaseMs?: number;
  sweepMs?: number;
  /** Start the stateful video host fake and configure publishing against it (client, endpoints, a token encryption key). */
  videoHost?: boolean;
  /**
   * Start a Postgres and a MinIO of this stack's own instead of a database and a bucket on the
   * run's shared ones (test/fixtures/shared-services.ts): for a test that restarts them. @default false
   */
  isolated?: boolean;
  /** Extra coordinator settings (they win over the stack's). */
  env?: Record<string, string>;
  /**
   * With billing: the JSON-RPC URL the coordinator is given, from anvil's (a proxy in front of it
   * that behaves like another kind of node). @default anvil's own URL
   */
  chainRpcUrl?: (anvilRpcUrl: string) => Promise<string>;
  /**
   * Extra render-agent settings (they win over AGENT_ENV). By default the stack's agents write no
   * text with the local model (extractive texts only): a model request takes 10-40 s on two cores,
   * and only the flows that test the model (find-clips-flow, summarize-flow) pay for it.
   */
  agentEnv?: Record<string, string>;
}

/** The stack's agents: quiet logs, and no local text-model requests unless a test asks (agentEnv). */
const AGENT_ENV = { LOG_LEVEL: process.env['AGENT_LOG'] ?? 'warn', LLM_CANDIDATES: '0', LLM_SUMMARY_CALLS: '0' };

/**
 * The whole system on real parts: Postgres, nats-server with JetStream, MinIO, the coordinator
 * (in this process, so tests can read its database) and render-agents as child processes.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cutroom-stack-'));
  // The run's shared Postgres and MinIO (a database and a bucket of this stack's own) unless it must own them.
  const ownPostgres = async () => (!opts.isolated && (await sharedDatabase())) || startPostgres();
  const ownS3 = async () => (!opts.isolated && (await sharedBucket())) || startS3();
  const [pg, nats, s3] = (await Promise.all([ownPostgres(), startNats(), opts.storage === 'local' ? Promise.resolve(undefined) : ownS3()])) as [
    PostgresFixture,
    NatsFixture,
    S3Fixture | undefined,
  ];
  const port = await freePort();
  const billing = opts.billing ? await startBilling() : undefined;
  const chainRpcUrl = billing ? ((await opts.chainRpcUrl?.(billing.anvil.rpcUrl)) ?? billing.anvil.rpcUrl) : undefined;
  const videoHost = opts.videoHost ? await startVideoHostFake() : undefined;
  const adminToken = `cro_test_admin_${randomBytes(16).toString('hex')}`;
  const coordinatorEnv: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    NATS_URL: nats.url,
    // The stack's nats-server trusts these (test/fixtures/nats.ts): NATS runs with auth as in production.
    NATS_OPERATOR_SEED: nats.auth.operatorSeed,
    NATS_SYSTEM_ACCOUNT_SEED: nats.auth.systemAccountSeed,
    NATS_ACCOUNT_SEED: nats.auth.accountSeed,
    LEASE_MS: String(opts.leaseMs ?? 30_000),
    SWEEP_INTERVAL_MS: String(opts.sweepMs ?? 1000),
    LOG_LEVEL: 'warn',
    // Tests create many sessions and jobs from 127.0.0.1: limits far above what a suite sends
    // (test/http-hardening.test.ts sets low ones to check them).
    RATE_LIMIT_SESSIONS_PER_IP: '100000',
    RATE_LIMIT_PER_SESSION: '100000',
    RATE_LIMIT_PER_IP: '100000',
    ...(billing
      ? {
          PAYMENT_CHALLENGE_SECRET: billing.challengeSecret,
          CHAIN_RPC_URL: chainRpcUrl!,
          CHAIN_ID: String(billing.anvil.chainId),
          CHAIN_TOKEN_ADDRESS: billing.token,
          CHAIN_RELAYER_KEY: billing.relayer.privateKey,
          CARD_SECRET_KEY: billing.stripe.secretKey,
          CARD_WEBHOOK_SECRET: billing.webhookSecret,
          CARD_API_BASE: billing.stripe.url,
          CARD_NETWORK_ID: 'profile_cutroom_test',
        }
      : {}),
    // The callback is this coordinator's (PUBLIC_BASE_URL defaults to http://127.0.0.1:<port>); Postgres needs a configured key.
    ...(videoHost
      ? { ...videoHost.env(`http://127.0.0.1:${port}/api/v1/connections/video-host/callback`), TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64') }
      : {}),
    ...opts.env,
    ...(s3
      ? { S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket, S3_REGION: s3.region, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey }
      : {}),
  };
  const config = loadCoordinatorConfig(coordinatorEnv);
  const coordinator = await startCoordinator(config, { adminToken, urlSigningSecret: 'test-url-signing-secret-0123' }, { natsUrl: nats.url });
  billing?.stripe.addWebhookEndpoint({ url: `${coordinator.url}/api/v1/webhooks/card`, secret: billing.webhookSecret });
  const agents: AgentChild[] = [];
  const target = { coordinatorUrl: coordinator.agentUrl, natsUrl: nats.url };
  const agentAuth = (id: string, tags?: string[]) => localAgentAuth(coordinator.ctx, target, join(dataDir, 'agents'), id, { tags });
  const startAgent = async (id: string, agentOpts: { tags?: string[]; env?: Record<string, string> } = {}) => {
    const auth = await agentAuth(id, agentOpts.tags);
    const a = startAgentChild({ id, coordinatorUrl: coordinator.agentUrl, natsUrl: nats.url, auth, env: { ...AGENT_ENV, ...opts.agentEnv, ...agentOpts.env } });
    agents.push(a);
    return a;
  };
  for (let i = 0; i < (opts.agents ?? 1); i++) await startAgent(`test-agent-${i + 1}`);
  return {
    coordinator,
    coordinatorEnv,
    api: apiClient(coordinator.url),
    natsUrl: nats.url,
    connectNats: nats.connect,
    natsAuth: nats.auth,
    adminToken,
    agents,
    s3,
    startAgent,
    agentAuth,
    agentCredential: (id, tags) => enrolledAgentToken(coordinator.ctx, id, tags),
    billing,
    videoHost,
    async stop() {
      await Promise.all(agents.map((a) => a.stop()));
      await coordinator.stop();
      await Promise.all([pg.stop(), nats.stop(), s3?.stop(), billing?.anvil.stop(), billing?.stripe.stop(), videoHost?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
