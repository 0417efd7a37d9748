import { sql } from 'drizzle-orm';
import { bigint, bigserial, doublePrecision, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { FailureCode } from '@cutroom/shared/failures';
import { JobStatus, JobType, PaymentStatus } from '@cutroom/shared/job-types';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Enum types: the database refuses a status, type or outcome the code does not know. Members are only ever added. */
export const jobTypeEnum = pgEnum('job_type', JobType.options as [JobType, ...JobType[]]);
export const jobStatusEnum = pgEnum('job_status', JobStatus.options as [JobStatus, ...JobStatus[]]);
export const paymentStatusEnum = pgEnum('payment_status', PaymentStatus.options as [PaymentStatus, ...PaymentStatus[]]);
/** How an attempt ended: the agent completed or failed it, or its lease ran out. */
export const attemptOutcomeEnum = pgEnum('attempt_outcome', ['completed', 'failed', 'lease_expired']);
export type AttemptOutcome = (typeof attemptOutcomeEnum.enumValues)[number];

/** Anonymous sessions. Only the token's SHA-256 is stored. */
export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  tokenHash: text('token_hash').notNull().unique(),
  cardCheckoutSessionId: text('card_checkout_session_id'),
  expiresAt: ts('expires_at').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/** Jobs. `status` is written only by jobs/transition-job.ts. */
export const jobs = pgTable(
  'jobs',
  {
    id: uuid('id').primaryKey(),
    sessionId: uuid('session_id').references(() => sessions.id),
    jobType: jobTypeEnum('job_type').notNull(),
    status: jobStatusEnum('status').notNull(),
    paymentStatus: paymentStatusEnum('payment_status').notNull(),
    originalFilename: text('original_filename').notNull(),
    contentType: text('content_type').notNull(),
    /** Declared by the upload's content type; re-checked against the probe. */
    mediaKind: text('media_kind'),
    priceCents: integer('price_cents').notNull(),
    /** USDC base units on the chain rail. */
    priceChainUnits: bigint('price_chain_units', { mode: 'bigint' }),
    amountPaidCents: integer('amount_paid_cents'),
    /** Rail and reference of the settled payment (null while unpaid or when billing is off). */
    paymentRail: text('payment_rail'),
    paymentReference: text('payment_reference'),
    payer: text('payer'),
    fileSize: bigint('file_size', { mode: 'number' }),
    durationSeconds: doublePrecision('duration_seconds'),
    errorCode: text('error_code').$type<FailureCode>(),
    errorMessage: text('error_message'),
    sourceKey: text('source_key'),
    sourceDeletedAt: ts('source_deleted_at'),
    sourceJobId: uuid('source_job_id'),
    /** The composite this job is a child of (composites/): shown to callers as the spec's bundle_job_id. */
    parentJobId: uuid('parent_job_id'),
    /** Validated CreateJobRequest fields the pipeline needs (language, segments, …). */
    params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
    /** Probe result reported by the agent. */
    media: jsonb('media').$type<Record<string, unknown>>(),
    /** Coalesced progress: newest wins. */
    progress: jsonb('progress').$type<{ stage: string; fraction: number; at: string } | null>(),
    currentAttemptId: uuid('current_attempt_id'),
    leaseExpiresAt: ts('lease_expires_at'),
    attemptCount: integer('attempt_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    completedAt: ts('completed_at'),
    expiresAt: ts('expires_at'),
    /**
     * Agent products (composites/products/): a step that needs I/O (read the clips document, capture or
     * release the card hold) is due from then on. Set in the transaction that makes it due, run by
     * the durable-step worker (ADR 0010: nudged after that commit, else its next poll), cleared by
     * the step that did it.
     */
    stepDueAt: ts('step_due_at'),
    /** The replica running the due step and until when (composites/composite-runs.ts): another takes it over once this passed. */
    stepLeaseOwner: text('step_lease_owner'),
    stepLeaseUntil: ts('step_lease_until'),
  },
  (t) => [
    index('jobs_session_idx').on(t.sessionId, t.createdAt),
    index('jobs_lease_idx').on(t.leaseExpiresAt).where(sql`current_attempt_id is not null`),
    index('jobs_expires_idx').on(t.expiresAt).where(sql`status in ('completed','failed')`),
    index('jobs_parent_idx').on(t.parentJobId).where(sql`parent_job_id is not null`),
    index('jobs_step_due_idx').on(t.stepDueAt).where(sql`step_due_at is not null`),
  ],
);

/** Append-only history of status changes, written in the same transaction as the change. */
export const jobEvents = pgTable(
  'job_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id),
    fromStatus: jobStatusEnum('from_status'),
    toStatus: jobStatusEnum('to_status').notNull(),
    reason: text('reason').notNull(),
    attemptId: uuid('attempt_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('job_events_job_idx').on(t.jobId, t.id)],
);

/** One row per claim. The job's current_attempt_id is the fence. */
export const jobAttempts = pgTable(
  'job_attempts',
  {
    id: uuid('id').primaryKey(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id),
    agentId: text('agent_id').notNull(),
    startedAt: ts('started_at').notNull(),
    endedAt: ts('ended_at'),
    outcome: attemptOutcomeEnum('outcome'),
    errorCode: text('error_code').$type<FailureCode>(),
    errorMessage: text('error_message'),
  },
  (t) => [index('job_attempts_job_idx').on(t.jobId), index('job_attempts_agent_idx').on(t.agentId, t.endedAt)],
);

/** Outputs: one row per (job, role), so a retried attempt replaces instead of adding. */
export const jobOutputs = pgTable(
  'job_outputs',
  {
    id: uuid('id').primaryKey(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id),
    role: text('role').notNull(),
    storageKey: text('storage_key'),
    externalUrl: text('external_url'),
    contentType: text('content_type'),
    bytes: bigint('bytes', { mode: 'number' }),
    /** Extra stored objects of this output (e.g. the words JSON beside an SRT). */
    meta: jsonb('meta').$type<Record<string, string>>().notNull().default({}),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('job_outputs_job_role_uq').on(t.jobId, t.role)],
);

/** Transactional outbox: rows written with a status change, relayed to JetStream. */
export const outbox = pgTable(
  'outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    subject: text('subject').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: ts('created_at').notNull(),
    publishedAt: ts('published_at'),
  },
  (t) => [index('outbox_unpublished_idx').on(t.id).where(sql`published_at is null`)],
);

export type JobRow = typeof jobs.$inferSelect;
export type JobPatch = Partial<Omit<typeof jobs.$inferInsert, 'id' | 'status'>>;

/** Agents and the capabilities they announced. */
/** How an operator set an agent: taking work, finishing its job then taking none, or gone for good. */
export type AgentControlState = 'active' | 'draining' | 'retired';

/**
 * Render-agents. A row is created when a host enrolls (operators/enrollment.ts) and refreshed by
 * every announcement (capabilities, version, liveness). `state` and `tags` are the operator's.
 */
export const agents = pgTable('agents', {
  id: text('id').primaryKey(),
  capabilities: jsonb('capabilities').notNull(),
  registeredAt: ts('registered_at').notNull(),
  lastSeenAt: ts('last_seen_at').notNull(),
  state: text('state').$type<AgentControlState>().notNull().default('active'),
  tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
  stateChangedAt: ts('state_changed_at'),
  /** Set by an operator: the agent trades its credential for a new one at its next announcement. */
  rotateRequestedAt: ts('rotate_requested_at'),
});

/** What a host connection is: usable, disconnected (by the caller or by a newer connection), or refused by the host (invalid_grant). */
export type HostConnectionStatus = 'active' | 'revoked' | 'invalid';

/**
 * A session's connected video host account (publishing/connections.ts). Tokens are sealed
 * (publishing/token-crypto.ts), never stored or returned in clear. At most one `active` row per
 * session and host: a new connection revokes the old one in the same transaction.
 */
export const hostConnections = pgTable(
  'host_connections',
  {
    id: uuid('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id),
    host: text('host').notNull().default('video_host'),
    /** The channel id the host reports, or null when it could not be asked (never made up). */
    accountId: text('account_id'),
    accountTitle: text('account_title'),
    /** Space-separated scopes the host granted. */
    scopes: text('scopes').notNull(),
    refreshTokenEnc: text('refresh_token_enc').notNull(),
    accessTokenEnc: text('access_token_enc'),
    accessExpiresAt: ts('access_expires_at'),
    status: text('status').$type<HostConnectionStatus>().notNull(),
    statusReason: text('status_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    revokedAt: ts('revoked_at'),
    /**
     * SHA-256 (hex) of the one-time revoke link shown to the browser that consented
     * (publishing/revoke-links.ts); null once used or once the connection is no longer active.
     */
    revokeTokenHash: text('revoke_token_hash'),
  },
  (t) => [
    index('host_connections_session_idx').on(t.sessionId),
    uniqueIndex('host_connections_active_uq').on(t.sessionId, t.host).where(sql`status = 'active'`),
    uniqueIndex('host_connections_revoke_token_uq').on(t.revokeTokenHash),
  ],
);
export type HostConnectionRow = typeof hostConnections.$inferSelect;

/**
 * One consent request in flight (publishing/consent-requests.ts): named by `request_id` in our
 * start URL, bound to the first browser that presses Continue there (the SHA-256 of the nonce in
 * its cookie), then sent to the host with `state` and a PKCE challenge whose verifier is kept
 * sealed. Used once, within 10 minutes.
 */
export const oauthStates = pgTable(
  'oauth_states',
  {
    /** 32 random bytes, base64url: the host echoes it back to the callback. */
    state: text('state').primaryKey(),
    /** 24 random bytes, base64url: the start URL's `request` (never the state, which only the bound browser sees). */
    requestId: text('request_id').notNull(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id),
    /** Sealed; set (and replaced) when the bound browser presses Continue, so no host URL exists before a binding. */
    codeVerifierEnc: text('code_verifier_enc'),
    /** SHA-256 (hex) of the browser's consent cookie; null until a browser presses Continue. */
    browserHash: text('browser_hash'),
    boundAt: ts('bound_at'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [index('oauth_states_expires_idx').on(t.expiresAt), uniqueIndex('oauth_states_request_uq').on(t.requestId)],
);
export type OAuthStateRow = typeof oauthStates.$inferSelect;

/**
 * The durable publish_video workflow of one job: which step it is at and what the host already
 * confirmed (resumable upload URI, bytes, video and caption ids), so a restart resumes and never
 * repeats a step. Leased by one worker at a time (lease_owner, lease_until); due at next_run_at.
 */
export const publishWorkflows = pgTable(
  'publish_workflows',
  {
    jobId: uuid('job_id')
      .primaryKey()
      .references(() => jobs.id),
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => hostConnections.id),
    step: text('step').notNull().default('start'),
    uploadUri: text('upload_uri'),
    bytesTotal: bigint('bytes_total', { mode: 'number' }),
    bytesConfirmed: bigint('bytes_confirmed', { mode: 'number' }).notNull().default(0),
    videoId: text('video_id'),
    captionId: text('caption_id'),
    attempts: integer('attempts').notNull().default(0),
    nextRunAt: ts('next_run_at').notNull(),
    leaseOwner: text('lease_owner'),
    leaseUntil: ts('lease_until'),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('publish_workflows_next_run_idx').on(t.nextRunAt)],
);
export type PublishWorkflowRow = typeof publishWorkflows.$inferSelect;

export * from './payments-schema.ts';
export * from './operators-schema.ts';
