import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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
    // One settled transaction (or PaymentIntent) books at most one charge: a payment can never pay two jobs.
    uniqueIndex('ledger_charge_reference_uq').on(t.rail, t.reference).where(sql`kind IN ('charge', 'hold') AND state = 'done' AND reference IS NOT NULL`),
    // Every refund is its own transaction: two refunds can never be settled by one transfer.
    uniqueIndex('ledger_refund_reference_uq').on(t.rail, t.reference).where(sql`kind = 'refund' AND state IN ('sending', 'done') AND reference IS NOT NULL`),
  ],
);

/**
 * Consumed-once record of every payment authorization presented to the service. The key names
 * the authorization itself, whatever protocol carried it (payments/consumption-key.ts): an
 * EIP-3009 authorization is `eip155:<chainId>:<from>:<nonce>` whether it came as an MPP `evm`
 * credential or an x402 PAYMENT-SIGNATURE, so one signed authorization can pay one thing only; a
 * card credential is keyed by its MPP challenge id. The row is inserted BEFORE settling: a
 * concurrent duplicate hits the primary key and is refused, so two requests carrying one
 * authorization settle at most once, and the same authorization re-sent for another purchase
 * (`purpose`) is refused.
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
    /** The authorization's consumption key (consumption-key.ts). */
    key: text('key').primaryKey(),
    /** The MPP challenge the credential answered (receipts, retries); null for x402. */
    challengeId: text('challenge_id'),
    /** What the authorization pays for (consumption-key.ts `purposeOf`): `job:<id>`, `request:<digest>`, `call:<what>`. */
    purpose: text('purpose'),
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

/**
 * The relayer's transaction nonces, shared by every coordinator replica (rails/relayer-nonces.ts):
 * a replica sends a relayer transaction only while it holds the lease (`holder`, until
 * `lease_until`), and takes the nonce from `next_nonce` (or the chain's pending count, if higher),
 * so two replicas never sign two transactions with one nonce.
 */
export const relayerNonces = pgTable(
  'relayer_nonces',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    nextNonce: bigint('next_nonce', { mode: 'number' }).notNull().default(0),
    holder: text('holder'),
    leaseUntil: ts('lease_until'),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.address] })],
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
