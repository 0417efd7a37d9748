import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { LIMITS } from '@cutroom/shared/limits';
import { parseRoutingTags } from './operators/routing-tags.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));
const optional = z
  .string()
  .min(1)
  .optional()
  .or(z.literal('').transform(() => undefined));

/** An URL setting with a default (an empty value in a .env file counts as unset). */
const urlOr = (fallback: string) => z.preprocess((v) => (v === '' ? undefined : v), z.url().default(fallback));
const DEFAULT_VIDEO_HOST_SCOPES = 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.force-ssl';

/** A token encryption key: base64 (or base64url) of exactly 32 bytes. */
export const isKey = (v: string): boolean => /^[A-Za-z0-9+/_-]{43}=?$/.test(v.trim()) && Buffer.from(v.trim(), 'base64').length === 32;
export const splitKeys = (v: string): string[] =>
  v
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/**
 * The coordinator's configuration: the only reader of process.env in this package.
 * Unset production URLs select the embedded default (PGlite, local-disk blobs, nats-server child).
 */
const EnvSchema = z.object({
  /** HTTP port. @default 8080 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Interface to listen on. @default 127.0.0.1 (set 0.0.0.0 behind a proxy or in a container) */
  HOST: z.string().default('127.0.0.1'),
  /** Base URL callers and agents use to reach this service. @default http://HOST:PORT */
  PUBLIC_BASE_URL: optionalUrl,
  /** Folder for the embedded database, blobs, nats-server store and generated secrets. @default <repo>/.data */
  DATA_DIR: z.string().default(resolve(repoRoot, '.data')),
  /** Postgres URL; unset → embedded PGlite under DATA_DIR/pg. */
  DATABASE_URL: optionalUrl,
  /**
   * NATS URL (JetStream enabled), or a comma-separated list of a cluster's servers (the client
   * fails over between them); unset → the embedded default starts a nats-server child.
   */
  NATS_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .refine((v) => v.split(',').every((u) => URL.canParse(u.trim())), 'a URL, or several separated by commas (the servers of one cluster)')
      .optional(),
  ),
  /**
   * Copies of the work stream a NATS JetStream cluster keeps (1, 3 or 5; at most the cluster's
   * size). Applied when the stream is created and on every start after. @default 1
   */
  NATS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .refine((n) => [1, 3, 5].includes(n), '1, 3 or 5')
    .default(1),
  /**
   * NATS authentication (docs/adr/0009). `jwt`: operator mode, each agent connects with its own
   * user JWT signed here, scoped to its work kinds and its own subjects, revoked with it. `none`:
   * connect without credentials (a server with no authentication; development only, logged as a
   * warning). @default jwt
   */
  NATS_AUTH: z.enum(['jwt', 'none']).default('jwt'),
  /**
   * The NATS operator, system account and service account seeds (nkeys `SO…`, `SA…`, `SA…`),
   * made together with the nats-server configuration by `npm run nats-auth` (deploy/README.md).
   * Required with NATS_URL and NATS_AUTH=jwt; the embedded default generates its own into
   * DATA_DIR/secrets.json.
   */
  NATS_OPERATOR_SEED: optional.refine((v) => v === undefined || /^SO[A-Z2-7]{56}$/.test(v), 'an operator nkey seed (SO…, 58 characters)'),
  NATS_SYSTEM_ACCOUNT_SEED: optional.refine((v) => v === undefined || /^SA[A-Z2-7]{56}$/.test(v), 'an account nkey seed (SA…, 58 characters)'),
  NATS_ACCOUNT_SEED: optional.refine((v) => v === undefined || /^SA[A-Z2-7]{56}$/.test(v), 'an account nkey seed (SA…, 58 characters)'),
  /** S3-compatible endpoint; unset with no S3_BUCKET → local-disk blobs served by the coordinator. */
  S3_ENDPOINT: optionalUrl,
  /** Bucket for sources and outputs; setting it selects the S3 store. */
  S3_BUCKET: optional,
  /** @default us-east-1 */
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,
  /** Path-style URLs (MinIO and most self-hosted stores need them). @default true */
  S3_FORCE_PATH_STYLE: bool.default(true),
  /** Host to sign presigned URLs for when agents/callers reach S3 by another name. */
  S3_PUBLIC_ENDPOINT: optionalUrl,
  /**
   * Serve the internal agent routes (/internal/v1) on their own listener at this port, and not on
   * the public one, so production exposes only the public API. Render-agents' COORDINATOR_URL must
   * then point at this listener. 0 picks a free port. @default unset (agent routes on PORT)
   */
  AGENT_LISTEN_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  /** Interface of the agent listener. @default 127.0.0.1 */
  AGENT_LISTEN_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * What the host command an operator copies from the console (enrollment) tells agents to reach:
   * the coordinator's agent routes through a load balancer, and the NATS servers as agents see
   * them. @default the agent listener's (or the public) URL, and NATS_URL
   */
  AGENT_PUBLIC_URL: optionalUrl,
  AGENT_NATS_URL: optional,
  /**
   * Bearer token GET /metrics (Prometheus text format) asks for. Set: served on the public and the
   * agent listener, to `Authorization: Bearer <METRICS_TOKEN>` only. Unset: served without one on
   * the agent listener (AGENT_LISTEN_PORT), and on the public listener only in the embedded default
   * (no DATABASE_URL, HOST a loopback address, PUBLIC_BASE_URL unset or loopback: a same-host
   * reverse proxy publishing it needs the token); elsewhere it is not served. @default unset
   */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
  /**
   * Which proxies may set X-Forwarded-For / -Proto / -Host (fastify's `trustProxy`): false, true
   * (any: only when every request comes through your proxy), a hop count, or a comma-separated list
   * of proxy addresses / CIDRs. Client IPs (rate limits, logs) come from it. @default false
   */
  TRUST_PROXY: z.string().default('false').transform(parseTrustProxy),
  /** Idle time after which a connection is closed (0: never). @default 120000 */
  HTTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(120_000),
  /** Time to receive a whole request, headers and body (0: unlimited); local-disk uploads must arrive within it. @default 300000 */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(300_000),
  /** Postgres `statement_timeout` for every query of the coordinator (0: none; PGlite has none). @default 30000 */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long an Idempotency-Key's answer is kept and replayed. @default 24 */
  IDEMPOTENCY_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(24),
  /** A key whose request has not answered after this long (a crash) is released to the next retry. @default 120 */
  IDEMPOTENCY_LOCK_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  /** Rate-limit window. @default 60 */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** POST /sessions per client IP per window (0: no limit). @default 30 */
  RATE_LIMIT_SESSIONS_PER_IP: z.coerce.number().int().min(0).default(30),
  /** Job creation, and payment calls (upload-url, complete-upload, process, checkout, /api/test), each per session per window (0: no limit). @default 60 */
  RATE_LIMIT_PER_SESSION: z.coerce.number().int().min(0).default(60),
  /** The same calls, each per client IP per window (0: no limit). @default 300 */
  RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(300),
  /**
   * Long-lived connections open at once (GET /jobs/{id}/events streams and MCP get_job_status
   * waits, counted together): per session, per client IP, and per coordinator process. Past the
   * session or IP cap: 429 with Retry-After; past the process cap: 503 with Retry-After. Each is
   * counted in this process's memory (per replica). The process cap keeps most of the process's
   * file descriptors for ordinary requests. @default 10, 50 and 1000
   */
  STREAMS_PER_SESSION: z.coerce.number().int().min(1).default(10),
  STREAMS_PER_IP: z.coerce.number().int().min(1).default(50),
  STREAMS_MAX: z.coerce.number().int().min(1).default(1000),
  /**
   * Token of the first operator (ADMIN_NAME), for the admin console and API; other operators are
   * added from the console. Unset → the embedded default generates one into DATA_DIR/secrets.json;
   * main.ts without it starts with the operators already in the database. Agents never use it:
   * each host enrolls with a one-use token an operator mints (docs/operators.md). @default unset
   */
  ADMIN_TOKEN: z.string().min(24).optional(),
  /** Name the ADMIN_TOKEN operator is recorded under in every action it takes. @default admin */
  ADMIN_NAME: z.string().min(1).max(64).default('admin'),
  /** Lifetime of a console log-in. @default 12 */
  ADMIN_SESSION_HOURS: z.coerce.number().positive().max(720).default(12),
  /** Lifetime of an enrollment token an operator mints. @default 24 */
  ENROLLMENT_TOKEN_TTL_HOURS: z.coerce.number().positive().max(720).default(24),
  /** How long a rotated agent credential keeps working beside its successor. @default 300 */
  AGENT_CREDENTIAL_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /**
   * Flamenco's rule per job type: an agent whose attempts at one job type failed this many times
   * (the agent's or our fault, or its lease lost; not the caller's media) is refused that type until
   * an operator clears it. 0: never. @default 3
   */
  BLOCKLIST_FAILURES: z.coerce.number().int().min(0).max(1000).default(3),
  /**
   * Tags an agent must carry to take work: `<work kind or job type>=<tag>,<tag>;…`, e.g.
   * `cut=gpu;transcribe=region-eu` (kinds: transcribe, understand, cut; a job type's entry adds to its
   * kind's). Operators give agents tags at enrollment and in the console. @default unset (none)
   */
  ROUTING_TAGS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseRoutingTags(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /**
   * HMAC secret for local-disk presigned URLs, its own secret (never the agent token). Unset → the
   * embedded default generates one per data folder; main.ts requires it with local-disk blobs.
   */
  URL_SIGNING_SECRET: z.string().min(16).optional(),
  /** Session token lifetime. @default 168 (7 days) */
  SESSION_TTL_HOURS: z.coerce.number().positive().default(168),
  /** Lifetime of presigned upload/download URLs. @default 3600 */
  PRESIGN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86400)
    .default(3600),
  /** Largest accepted upload. @default 2 GiB */
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(LIMITS.uploadMaxBytes),
  /**
   * Media by URL: whether a job's source_url may be http (not only https). Plain http lets anyone on
   * the path change what is fetched. @default false
   */
  SOURCE_URL_ALLOW_HTTP: z.stringbool().default(false),
  /**
   * A test setting, never for production: exact IP addresses a source_url may name although they are
   * not public (the flows' local HTTP server), comma-separated; agents have their own. @default none
   */
  SOURCE_URL_TEST_ALLOW_ADDRESSES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  /** Media by URL: how long an agent's whole fetch of a source_url may take (at most UPLOAD_MAX_BYTES). @default 900000 (15 min) */
  SOURCE_URL_FETCH_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(6 * 3600_000)
    .default(900_000),
  /** Agent lease; agents renew at half. @default 30000 */
  LEASE_MS: z.coerce.number().int().min(2000).default(30_000),
  /**
   * Longest an attempt may hold its job, however faithfully it heartbeats: past it the heartbeat
   * ends the attempt as stage_timeout (retried by another agent, up to MAX_ATTEMPTS, then failed
   * and refunded) and tells the agent to stop. Above the longest honest attempt: a 4-hour upload
   * transcribed at three times its length on CPU. @default 720 (12 h)
   */
  ATTEMPT_MAX_MINUTES: z.coerce.number().int().min(1).default(720),
  /**
   * Back-off before a failed attempt's job is claimed again: RETRY_BACKOFF_MS after the first
   * failure, doubling with each further one, at most RETRY_BACKOFF_MAX_MS. A dependency that is
   * down for a few seconds (object store, database) then costs the job waiting, not its attempts.
   * @default 5000 and 60000
   */
  RETRY_BACKOFF_MS: z.coerce.number().int().min(0).default(5000),
  RETRY_BACKOFF_MAX_MS: z.coerce.number().int().min(0).default(60_000),
  /** Attempts before a job fails for good. @default 3 */
  MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** How often the sweeper looks for expired leases and retention. @default 5000 */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  /**
   * Whisper model every agent is asked to use (a name or a folder the agents hold). Unset: each
   * agent uses its own WHISPER_MODEL (tiny.en unless its operator chose another, e.g. a larger
   * model on a GPU host). @default unset
   */
  WHISPER_MODEL: z.string().default(''),
  /** Embedded default only: render-agents to start beside the coordinator. @default 1 */
  EMBEDDED_AGENTS: z.coerce.number().int().min(0).max(8).default(1),
  // ---- billing: unset → billing off (jobs are created already paid). See README "Payments".
  /** HMAC secret binding MPP challenge ids (>= 32 chars). Required once any rail is configured. */
  PAYMENT_CHALLENGE_SECRET: z.string().min(32).optional(),
  /** Protection space named in challenges. @default the host of PUBLIC_BASE_URL */
  PAYMENT_REALM: optional,
  /** How long a 402 challenge can be answered. @default 600 */
  PAYMENT_CHALLENGE_TTL_SECONDS: z.coerce.number().int().min(30).max(86400).default(600),
  /** Chain rail (USDC by EIP-3009): JSON-RPC URL of the chain the service settles on. */
  CHAIN_RPC_URL: optionalUrl,
  /** @default 8453 (Base) */
  CHAIN_ID: z.coerce.number().int().positive().default(8453),
  /** USDC (or any EIP-3009 token) contract address. */
  CHAIN_TOKEN_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .optional(),
  /** EIP-712 domain of the token. @default USD Coin / 2 (Circle's USDC) */
  CHAIN_TOKEN_NAME: z.string().default('USD Coin'),
  CHAIN_TOKEN_VERSION: z.string().default('2'),
  /** Private key of the relayer: pays gas for settlements and receives + refunds payments. */
  CHAIN_RELAYER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .optional(),
  /** Address that receives payments. @default the relayer's address (refunds are paid from it, so it must be that address) */
  CHAIN_RECIPIENT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .optional(),
  /** Card rail: the card processor's secret API key and webhook signing secret. */
  CARD_SECRET_KEY: optional,
  CARD_WEBHOOK_SECRET: optional,
  /** Card processor API base URL override (a proxy, or the in-repo fake in tests). */
  CARD_API_BASE: optionalUrl,
  /** Card network profile id for the MPP `stripe` method (stock clients require it); unset → only hosted checkout is offered for cards. */
  CARD_NETWORK_ID: optional,
  /** Where hosted checkout returns the caller. @default PUBLIC_BASE_URL/api/v1/jobs/{id} */
  CHECKOUT_SUCCESS_URL: optionalUrl,
  CHECKOUT_CANCEL_URL: optionalUrl,
  // ---- publishing (publish_video): a video host with the shape of the YouTube Data API v3. Off unless both client settings are set.
  /** OAuth client id of this deployment at the video host. Publishing needs it and VIDEO_HOST_CLIENT_SECRET. */
  VIDEO_HOST_CLIENT_ID: optional,
  /** OAuth client secret (never logged). */
  VIDEO_HOST_CLIENT_SECRET: optional,
  /** Consent page the caller's browser is sent to. @default Google's */
  VIDEO_HOST_AUTH_URL: urlOr('https://accounts.google.com/o/oauth2/v2/auth'),
  /** Token endpoint (code exchange, refresh). */
  VIDEO_HOST_TOKEN_URL: urlOr('https://oauth2.googleapis.com/token'),
  /** Revocation endpoint (disconnect). */
  VIDEO_HOST_REVOKE_URL: urlOr('https://oauth2.googleapis.com/revoke'),
  /** API root of the host's client library (videos, captions, channels). */
  VIDEO_HOST_API_BASE: urlOr('https://www.googleapis.com'),
  /** A published video's address is this followed by its id. */
  VIDEO_HOST_WATCH_URL: urlOr('https://www.youtube.com/watch?v='),
  /** Where the host sends the browser back after consent; register it at the host. On PUBLIC_BASE_URL's origin (the consent cookie must reach it). @default PUBLIC_BASE_URL/api/v1/connections/video-host/callback */
  VIDEO_HOST_REDIRECT_URL: optionalUrl,
  /** Space-separated scopes asked for: upload, and force-ssl, which captions.insert needs. */
  VIDEO_HOST_SCOPES: z
    .string()
    .default(DEFAULT_VIDEO_HOST_SCOPES)
    .transform((v) => v.trim() || DEFAULT_VIDEO_HOST_SCOPES),
  /**
   * 32 random bytes, base64: seals refresh/access tokens and PKCE verifiers at rest (AES-256-GCM).
   * Required with publishing and DATABASE_URL; unset with the embedded PGlite → generated and kept in DATA_DIR.
   */
  TOKEN_ENCRYPTION_KEY: optional.refine((v) => v === undefined || isKey(v), 'must be 32 bytes, base64 (openssl rand -base64 32)'),
  /** Comma-separated former TOKEN_ENCRYPTION_KEYs: still opened, re-sealed under the current key when used. */
  TOKEN_ENCRYPTION_KEYS_OLD: optional.refine((v) => v === undefined || splitKeys(v).every(isKey), 'each key must be 32 bytes, base64'),
  // The publish workflow (publishing/publish-worker.ts, ADR 0006); every replica runs it.
  /** How often the worker looks for due publish workflows. @default 1000 */
  PUBLISH_POLL_MS: z.coerce.number().int().min(50).default(1000),
  /** Bytes per resumable-upload PUT (a multiple of 256 KiB, as the host requires). @default 8388608 (8 MiB) */
  PUBLISH_CHUNK_BYTES: z.coerce
    .number()
    .int()
    .min(256 * 1024)
    .refine((n) => n % (256 * 1024) === 0, 'must be a multiple of 262144 (256 KiB)')
    .default(8 * 1024 * 1024),
  /** A replica's hold on a workflow; another takes it over once it lapses. @default 120 */
  PUBLISH_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
  /** Retryable host failures (5xx, rate limits, network) before the job fails and is refunded. @default 8 */
  PUBLISH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  /** Quota exhausted: wait for the host's next quota day when it starts within this many hours, else fail and refund. @default 24 */
  PUBLISH_QUOTA_MAX_WAIT_HOURS: z.coerce.number().min(0).max(168).default(24),
  // ---- discovery documents (agent card, ai-plugin.json, MCP server card, api-catalog): who runs this deployment.
  /** Organization named as the provider in the agent card. @default cutroom */
  PROVIDER_NAME: z.string().min(1).max(200).default('cutroom'),
  /** The provider's website. @default PUBLIC_BASE_URL */
  PROVIDER_URL: optionalUrl,
  /** Contact address published in ai-plugin.json. @default support@<host of PUBLIC_BASE_URL> (support@cutroom.localhost for an IP or a name without a dot) */
  CONTACT_EMAIL: z
    .email()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Terms of use published in ai-plugin.json. @default PUBLIC_BASE_URL/docs#terms (the generated terms section) */
  LEGAL_INFO_URL: optionalUrl,
  /** Human documentation (api-catalog service-doc, agent card documentationUrl). @default PUBLIC_BASE_URL/docs (generated) */
  DOCS_URL: optionalUrl,
  /** pino level. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type TrustProxy = boolean | number | string[];

/** TRUST_PROXY: `false`/`0`/empty → off, `true` → any proxy, a number → hops, else addresses / CIDRs. */
export function parseTrustProxy(v: string): TrustProxy {
  const s = v.trim();
  if (s === '' || s === 'false' || s === '0') return false;
  if (s === 'true') return true;
  if (/^\d+$/.test(s)) return Number(s);
  return s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export type CoordinatorEnv = z.infer<typeof EnvSchema>;

/** The video host publish_video uploads to, when VIDEO_HOST_CLIENT_ID and _SECRET are set. */
export interface VideoHostSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  /** Without a trailing slash. */
  apiBase: string;
  watchUrl: string;
  redirectUrl: string;
  /** Our page a connection request's `authorize_url` opens (PUBLIC_BASE_URL/api/v1/connections/video-host/start). */
  startUrl: string;
  /** Our page of the one-time revoke link shown after consent (PUBLIC_BASE_URL/api/v1/connections/video-host/revoke). */
  revokePageUrl: string;
  /** The consent cookie's Path: the deepest folder holding both the start page and the callback. */
  consentCookiePath: string;
  scopes: string[];
}

export interface CoordinatorConfig extends CoordinatorEnv {
  publicBaseUrl: string;
  /** Publishing settings, or null: connecting an account and publish_video are then refused (400). */
  videoHost: VideoHostSettings | null;
  /** CONTACT_EMAIL or its default. */
  contactEmail: string;
  /** True when at least one payment rail is configured. */
  billingEnabled: boolean;
}

export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env): CoordinatorConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? '127.0.0.1' : c.HOST;
  const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://${host}:${c.PORT}`).replace(/\/+$/, '');
  const chain = Boolean(c.CHAIN_RPC_URL && c.CHAIN_TOKEN_ADDRESS && c.CHAIN_RELAYER_KEY);
  const card = Boolean(c.CARD_SECRET_KEY && c.CARD_WEBHOOK_SECRET);
  const partialChain = !chain && Boolean(c.CHAIN_RPC_URL || c.CHAIN_TOKEN_ADDRESS || c.CHAIN_RELAYER_KEY);
  const partialCard = !card && Boolean(c.CARD_SECRET_KEY || c.CARD_WEBHOOK_SECRET);
  if (partialChain) throw new Error('invalid configuration: the chain rail needs CHAIN_RPC_URL, CHAIN_TOKEN_ADDRESS and CHAIN_RELAYER_KEY together');
  if (partialCard) throw new Error('invalid configuration: the card rail needs CARD_SECRET_KEY and CARD_WEBHOOK_SECRET together');
  if (c.ADMIN_TOKEN && c.URL_SIGNING_SECRET && c.ADMIN_TOKEN === c.URL_SIGNING_SECRET)
    throw new Error('invalid configuration: URL_SIGNING_SECRET must not be the ADMIN_TOKEN');
  if (c.AGENT_LISTEN_PORT !== undefined && c.AGENT_LISTEN_PORT !== 0 && c.AGENT_LISTEN_PORT === c.PORT)
    throw new Error('invalid configuration: AGENT_LISTEN_PORT must differ from PORT (unset it to serve agent routes on PORT)');
  if ((chain || card) && !c.PAYMENT_CHALLENGE_SECRET)
    throw new Error('invalid configuration: PAYMENT_CHALLENGE_SECRET (>= 32 chars) is required when a payment rail is configured');
  const natsSeeds = [c.NATS_OPERATOR_SEED, c.NATS_SYSTEM_ACCOUNT_SEED, c.NATS_ACCOUNT_SEED];
  if (natsSeeds.some(Boolean) && !natsSeeds.every(Boolean))
    throw new Error('invalid configuration: NATS_OPERATOR_SEED, NATS_SYSTEM_ACCOUNT_SEED and NATS_ACCOUNT_SEED go together (npm run nats-auth makes them)');
  const videoHost = videoHostOf(c, publicBaseUrl);
  return { ...c, publicBaseUrl, videoHost, contactEmail: c.CONTACT_EMAIL ?? defaultContactEmail(publicBaseUrl), billingEnabled: chain || card };
}

function videoHostOf(c: CoordinatorEnv, publicBaseUrl: string): VideoHostSettings | null {
  if (Boolean(c.VIDEO_HOST_CLIENT_ID) !== Boolean(c.VIDEO_HOST_CLIENT_SECRET))
    throw new Error('invalid configuration: publishing needs VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET together');
  if (!c.VIDEO_HOST_CLIENT_ID || !c.VIDEO_HOST_CLIENT_SECRET) return null;
  // A key generated into DATA_DIR only works where the data lives there too (PGlite): replicas sharing Postgres need one key.
  if (c.DATABASE_URL && !c.TOKEN_ENCRYPTION_KEY)
    throw new Error('invalid configuration: TOKEN_ENCRYPTION_KEY (32 bytes, base64) is required when publishing is configured with DATABASE_URL');
  const routes = `${publicBaseUrl}/api/v1/connections/video-host`;
  const redirectUrl = c.VIDEO_HOST_REDIRECT_URL ?? `${routes}/callback`;
  // The start page sets the cookie that binds a consent to its browser; the callback must receive it.
  if (new URL(redirectUrl).origin !== new URL(publicBaseUrl).origin)
    throw new Error(
      `invalid configuration: VIDEO_HOST_REDIRECT_URL (${redirectUrl}) must be on PUBLIC_BASE_URL's origin (${new URL(publicBaseUrl).origin}): ` +
        'the consent cookie set by the start page there must reach the callback',
    );
  return {
    clientId: c.VIDEO_HOST_CLIENT_ID,
    clientSecret: c.VIDEO_HOST_CLIENT_SECRET,
    authUrl: c.VIDEO_HOST_AUTH_URL,
    tokenUrl: c.VIDEO_HOST_TOKEN_URL,
    revokeUrl: c.VIDEO_HOST_REVOKE_URL,
    apiBase: c.VIDEO_HOST_API_BASE.replace(/\/+$/, ''),
    watchUrl: c.VIDEO_HOST_WATCH_URL,
    redirectUrl,
    startUrl: `${routes}/start`,
    revokePageUrl: `${routes}/revoke`,
    consentCookiePath: commonFolder(new URL(routes).pathname, new URL(redirectUrl).pathname),
    scopes: c.VIDEO_HOST_SCOPES.split(/\s+/).filter(Boolean),
  };
}

/** The deepest folder that holds both a folder and a file path (`/a/b` and `/a/c/cb` → `/a`; nothing shared → `/`). */
function commonFolder(folder: string, file: string): string {
  const a = folder.split('/').filter(Boolean);
  const b = file.split('/').filter(Boolean).slice(0, -1);
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return `/${a.slice(0, n).join('/')}`;
}

/** support@ the public host when it is a DNS name (an address needs a domain with a dot); a reserved name otherwise. */
function defaultContactEmail(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname;
  const dns = host.includes('.') && !/^[\d.]+$/.test(host) && !host.startsWith('[');
  return `support@${dns ? host : 'cutroom.localhost'}`;
}
