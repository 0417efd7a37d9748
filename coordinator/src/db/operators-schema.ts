import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * People who run the farm. Each has a token of their own (`cro_…`, shown once, SHA-256 stored),
 * so every action names who took it. The first one comes from ADMIN_TOKEN (or, embedded, the
 * data folder's secrets file); others are added from the console.
 */
export const operators = pgTable('operators', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull().unique(),
  tokenHash: text('token_hash').notNull().unique(),
  createdBy: text('created_by'),
  createdAt: ts('created_at').notNull(),
  revokedAt: ts('revoked_at'),
});

/** Console log-ins: an httpOnly cookie carries the id; only its SHA-256 is stored. */
export const adminSessions = pgTable('admin_sessions', {
  idHash: text('id_hash').primaryKey(),
  operatorId: uuid('operator_id')
    .notNull()
    .references(() => operators.id),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
});

/**
 * One-use tokens (`cre_…`) an operator mints to add a host: the agent trades one for its own
 * credential (operators/enrollment.ts). The tags become the agent's; `agent_id`, when set, is the
 * name the agent gets whatever it asks for.
 */
export const enrollmentTokens = pgTable('enrollment_tokens', {
  id: uuid('id').primaryKey(),
  tokenHash: text('token_hash').notNull().unique(),
  agentId: text('agent_id'),
  tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
  createdBy: text('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  usedBy: text('used_by'),
  revokedAt: ts('revoked_at'),
});

/**
 * An agent's own bearer credentials (`cra_…`). Several may be valid for a moment: a rotated one
 * keeps working until `expires_at` (a grace period), a revoked one never again.
 */
export const agentCredentials = pgTable(
  'agent_credentials',
  {
    id: uuid('id').primaryKey(),
    agentId: text('agent_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [uniqueIndex('agent_credentials_token_uq').on(t.tokenHash), index('agent_credentials_agent_idx').on(t.agentId)],
);

/**
 * The NATS user keys agents registered (nats-auth/, docs/adr/0009): the agent holds the seed, the
 * coordinator signs a user JWT for the public key. A revoked key goes into the account JWT's
 * revocation list, which nats-server enforces (and closes the key's open connections) once pushed.
 * An agent has one live key; registering another revokes the old one.
 */
export const agentNatsKeys = pgTable(
  'agent_nats_keys',
  {
    publicKey: text('public_key').primaryKey(),
    agentId: text('agent_id').notNull(),
    kinds: text('kinds').array().notNull().default(sql`'{}'::text[]`),
    issuedAt: ts('issued_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('agent_nats_keys_agent_idx').on(t.agentId)],
);

/**
 * When an operator last cleared an agent's block for a job type: its failures of that type before
 * this no longer count (operators/blocklist.ts).
 */
export const agentBlockClears = pgTable(
  'agent_block_clears',
  {
    agentId: text('agent_id').notNull(),
    jobType: text('job_type').notNull(),
    clearedAt: ts('cleared_at').notNull(),
    clearedBy: text('cleared_by').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.jobType] })],
);

/** What an operator did, to what, when (operators/audit.ts). Job actions also leave a job_events row. */
export const operatorActions = pgTable(
  'operator_actions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    operator: text('operator').notNull(),
    action: text('action').notNull(),
    /** job | agent | refund | enrollment | operator */
    targetKind: text('target_kind').notNull(),
    targetId: text('target_id').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('operator_actions_target_idx').on(t.targetKind, t.targetId), index('operator_actions_created_idx').on(t.createdAt)],
);
