// Migration 0011 on a database with payments in flight: the open rows take the authorization's
// key, a double spend in progress is left for an operator, and a transaction booked twice (as
// two charges or two refunds) keeps its first booking. Migrations 0000-0010 run first, rows are
// written as the old code wrote them, then 0011 runs.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const folder = fileURLToPath(new URL('../../drizzle', import.meta.url));
const files = readdirSync(folder)
  .filter((f) => /^\d{4}_.*\.sql$/.test(f))
  .sort();
const run = async (db: PGlite, file: string) => {
  for (const statement of readFileSync(`${folder}/${file}`, 'utf8').split('--> statement-breakpoint')) {
    if (statement.trim()) await db.exec(statement);
  }
};

const FROM = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const PAYER = `did:pkh:eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC`;
const NONCE = `0x${'AB'.repeat(32)}`;
const recovery = (nonce: string) => JSON.stringify({ rail: 'chain', from: FROM, nonce, value: '200000', validBefore: '4102444800' });
const JOB_A = '00000000-0000-4000-8000-00000000000a';
const JOB_B = '00000000-0000-4000-8000-00000000000b';
const JOB_C = '00000000-0000-4000-8000-00000000000c';

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create('memory://');
  for (const f of files.filter((f) => f < '0011')) await run(db, f);
  const consumption = (key: string, jobId: string, state: string, nonce: string | null, createdAt: string) =>
    db.query(
      `INSERT INTO payment_consumptions (challenge_id, method, job_id, state, created_at, updated_at, rail, ledger_job_id, amount, currency, payer, recovery)
       VALUES ($1, $2, $3, $4, $5, $5, 'chain', $3, 200000, 'USDC', $6, $7)`,
      [key, key.startsWith('x402:') ? 'x402' : 'evm', jobId, state, createdAt, PAYER, nonce ? recovery(nonce) : null],
    );
  // One authorization, open under both protocols (the double spend in flight): the MPP row first.
  await consumption('challenge-a', JOB_A, 'pending', NONCE, '2026-11-01T00:00:00Z');
  await consumption(`x402:${FROM}:${NONCE.toLowerCase()}`, JOB_B, 'pending', NONCE, '2026-11-01T00:00:01Z');
  // A settled row keeps its key (its recovery data is gone; the token refuses its nonce).
  await consumption('challenge-c', JOB_C, 'settled', null, '2026-10-01T00:00:00Z');
  const ledger = (jobId: string, kind: string, state: string, reference: string, key: string) =>
    db.query(
      `INSERT INTO ledger_entries (job_id, rail, kind, amount, currency, state, reference, payer, idempotency_key, created_at, updated_at)
       VALUES ($1, 'chain', $2, 200000, 'USDC', $3, $4, $5, $6, now(), now())`,
      [jobId, kind, state, reference, PAYER, key],
    );
  // One transfer booked as two jobs' charges, and one refund transfer marking two refunds done.
  await ledger(JOB_A, 'charge', 'done', '0xcharge', 'charge:a');
  await ledger(JOB_B, 'charge', 'done', '0xcharge', 'charge:b');
  await ledger(JOB_A, 'refund', 'done', '0xrefund', 'refund:a');
  await ledger(JOB_B, 'refund', 'done', '0xrefund', 'refund:b');
  await run(db, files.find((f) => f.startsWith('0011'))!);
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe('migration 0011', () => {
  it('re-keys the open chain rows by their authorization; the later of two carrying one is stuck for an operator', async () => {
    const { rows } = await db.query<{ key: string; challenge_id: string | null; purpose: string | null; state: string; last_error: string | null }>(
      'SELECT key, challenge_id, purpose, state, last_error FROM payment_consumptions ORDER BY created_at',
    );
    expect(rows).toEqual([
      { key: 'challenge-c', challenge_id: 'challenge-c', purpose: `job:${JOB_C}`, state: 'settled', last_error: null },
      { key: `eip155:8453:${FROM}:${NONCE.toLowerCase()}`, challenge_id: 'challenge-a', purpose: `job:${JOB_A}`, state: 'pending', last_error: null },
      {
        key: `x402:${FROM}:${NONCE.toLowerCase()}`,
        challenge_id: null,
        purpose: `job:${JOB_B}`,
        state: 'stuck',
        last_error: expect.stringMatching(/also presented by consumption eip155:8453:.*one authorization pays one thing/),
      },
    ]);
  });

  it('keeps the first booking of a transaction booked twice; the others are failed with a note', async () => {
    const { rows } = await db.query<{ job_id: string; kind: string; state: string; last_error: string | null }>(
      'SELECT job_id, kind, state, last_error FROM ledger_entries ORDER BY id',
    );
    expect(rows).toEqual([
      { job_id: JOB_A, kind: 'charge', state: 'done', last_error: null },
      { job_id: JOB_B, kind: 'charge', state: 'failed', last_error: expect.stringMatching(/already booked as charge \d+; one transfer pays one job/) },
      { job_id: JOB_A, kind: 'refund', state: 'done', last_error: null },
      { job_id: JOB_B, kind: 'refund', state: 'failed', last_error: expect.stringMatching(/this refund was not paid: queue it again/) },
    ]);
  });

  it('from now on a transaction books one charge and settles one refund', async () => {
    const insert = (kind: string, state: string, reference: string, key: string) =>
      db.query(
        `INSERT INTO ledger_entries (job_id, rail, kind, amount, currency, state, reference, idempotency_key, created_at, updated_at)
         VALUES ($1, 'chain', $2, 1, 'USDC', $3, $4, $5, now(), now())`,
        [JOB_C, kind, state, reference, key],
      );
    await expect(insert('charge', 'done', '0xcharge', 'charge:c')).rejects.toThrow(/ledger_charge_reference_uq/);
    await expect(insert('refund', 'sending', '0xrefund', 'refund:c')).rejects.toThrow(/ledger_refund_reference_uq/);
    // A failed attempt may name the same transaction (it is history, not a booking).
    await insert('charge', 'failed', '0xcharge', 'charge:c:failed:1');
  });
});
