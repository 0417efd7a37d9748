import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Every movement of money, append-only: charge, hold, capture, release, refund. Amounts are
 * integers in the rail's base unit (USD cents, USDC 6-decimal units). `idempotency_key` is
 * unique, so the same movement can never be recorded (or, by the rails' own idempotency keys,
 * executed) twice. A refund row is written `pending` in the transaction that fails the job and
 * moved to `done` once the rail confirms it.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: uuid('job_id'),
    rail: text('rail').notNull(),
    kind: text('kind').notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    /** pending | done | failed; chain refunds pass through `sending`. A charge is `pending` while its outcome is being reconciled. */
    state: text('state').notNull(),
    /** Tx hash, PaymentIntent id, refund id … once known. */
    reference: text('reference'),
    /** For refunds, captures and releases: the charge or hold (its reference) they apply to. */
    chargeReference: text('charge_reference'),
    payer: text('payer'),
    idempotencyKey: text('idempotency_key').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /**
     * Chain refunds: the signed transfer `{hash, raw}`, recorded BEFORE it is broadcast while the
     * row is `sending`, so a refund whose receipt did not come (or whose sender crashed) is
     * reconciled by its hash instead of being sent twice.
     */
    chainTx: jsonb('chain_tx').$type<{ hash: `0x${string}`; raw: `0x${string}` }>(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('ledger_idempotency_uq').on(t.idempotencyKey),
    index('ledger_job_idx').on(t.jobId),
    index('ledger_pending_idx').on(t.id).where(sql`state = 'pending'`),
    index('ledger_sending_idx').on(t.updatedAt).where(sql`state = 'sending'`),
  ],
);

/**
 * Consumed-once record of every MPP challenge / x402 authorization answered with a credential.
 * The row is inserted BEFORE settling: a concurrent duplicate hits the primary key and is
 * refused, so two requests carrying one credential settle at most once.
 *
 * States: `settling` (the request is talking to the rail) → `settled`; or, when the rail's
 * answer did not come (a receipt wait timed out, a processor error after the request may have
 * run, a coordinator crash: `settling` older than a bound), `pending`: the reconciler
 * (payments/reconcile.ts, on the sweeper cadence) asks the rail again with `recovery` and ends it
 * `settled` (ledger charge, job paid) or failed (ledger row, consumption deleted so the payer can
 * pay again). A row the reconciler cannot decide for long, or whose chain answer makes no sense,
 * becomes `stuck` for an operator (still re-checked, slowly). A failed settlement before anything
 * reached the rail deletes the row at once.
 */
export const paymentConsumptions = pgTable(
  'payment_consumptions',
  {
    challengeId: text('challenge_id').primaryKey(),
    method: text('method').notNull(),
    jobId: uuid('job_id'),
    /** settling | pending | stuck | settled */
    state: text('state').notNull(),
    /** Tx hash (recorded before broadcast), PaymentIntent id. */
    reference: text('reference'),
    createdAt: ts('created_at').notNull(),
    /** chain | card (null on rows from before migration 0006). */
    rail: text('rail'),
    /** The job the charge is booked under (differs from job_id for paid creation; null for the smoke test). */
    ledgerJobId: uuid('ledger_job_id'),
    amount: bigint('amount', { mode: 'bigint' }),
    currency: text('currency'),
    /** did:pkh of the chain payer (refunds go there). */
    payer: text('payer'),
    /** What reconciling needs (payments/settlement.ts `Recovery`); cleared once the row is settled. Holds a card SPT while pending. */
    recovery: jsonb('recovery'),
    attempts: integer('attempts').notNull().default(0),
    nextCheckAt: ts('next_check_at'),
    lastError: text('last_error'),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    // One credential per job: two payers racing for the same job cannot both be charged.
    uniqueIndex('payment_consumptions_job_uq').on(t.jobId),
    index('payment_consumptions_open_idx').on(t.nextCheckAt).where(sql`state <> 'settled'`),
  ],
);

/** Hosted card checkout sessions per job; the completion webhook is applied once. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    jobId: uuid('job_id').notNull(),
    url: text('url').notNull(),
    amountCents: integer('amount_cents').notNull(),
    /** open | completed | expired */
    status: text('status').notNull(),
    paymentIntentId: text('payment_intent_id'),
    createdAt: ts('created_at').notNull(),
    completedAt: ts('completed_at'),
  },
  (t) => [uniqueIndex('checkout_sessions_job_uq').on(t.jobId)],
);

/** Card-processor webhook events already applied (retries of one event do nothing). */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: ts('received_at').notNull(),
});

/** `Idempotency-Key` on POST: the first response is stored and replayed for the same key. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status'),
    body: jsonb('body'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    createdAt: ts('created_at').notNull(),
    /** When the stored answer is forgotten (the sweeper deletes the row); a replay after that runs again. */
    expiresAt: ts('expires_at'),
  },
  (t) => [uniqueIndex('idempotency_scope_key_uq').on(t.scope, t.key), index('idempotency_expires_idx').on(t.expiresAt)],
);
