import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, operatorActions } from '../db/schema.ts';
import type { Billing } from '../payments/billing.ts';
import type { RefundStatus } from '../payments/rails/chain-rail.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { moneySummary, reconcileRefund, resolveRefund } from './money.ts';

// Refunds that ended `failed`, handed back by an operator. The rails are scripted: what matters is
// which rail call the reconcile makes (a signed chain refund is looked up by its hash, never re-sent
// first; a card refund is re-run under the same idempotency key).
let ctx: EngineCtx;
const calls = { checkRefund: 0, sendRefund: 0, cardRefunds: [] as string[] };
let refundStatus: RefundStatus = { status: 'done', txHash: `0x${'ab'.repeat(32)}` };
beforeAll(async () => {
  ctx = await createEngineCtx();
  const chain = {
    checkRefund: async (tx: { hash: `0x${string}` }) => {
      calls.checkRefund++;
      // Landed: the refund's own transaction.
      return refundStatus.status === 'done' ? { status: 'done', txHash: tx.hash } : refundStatus;
    },
    sendRefund: async () => {
      calls.sendRefund++;
      throw new Error('not in this test');
    },
  };
  const card = {
    refund: async (_charge: string, key: string) => {
      calls.cardRefunds.push(key);
      return { id: 're_1', kind: 'refund' as const };
    },
  };
  ctx.billing = { ...ctx.billing, chain, card } as unknown as Billing;
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const alice = { id: randomUUID(), name: 'alice' };
const PAYER = 'did:pkh:eip155:31337:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

async function failedRefund(rail: 'chain' | 'card', signed: boolean) {
  const now = ctx.clock.now();
  // Each refund its own transaction (ledger_refund_reference_uq).
  const hash = `0x${randomBytes(32).toString('hex')}` as const;
  const [row] = await ctx.db
    .insert(ledgerEntries)
    .values({
      jobId: randomUUID(),
      rail,
      kind: 'refund',
      amount: rail === 'chain' ? 200_000n : 50n,
      currency: rail === 'chain' ? 'usdc' : 'usd',
      state: 'failed',
      payer: rail === 'chain' ? PAYER : null,
      chargeReference: rail === 'card' ? 'pi_123' : `0x${'cd'.repeat(32)}`,
      idempotencyKey: `refund:${randomUUID()}`,
      attempts: 8,
      lastError: 'gave up after 8 sends: no receipt',
      chainTx: signed ? { hash, raw: '0x02f8' } : null,
      reference: signed ? hash : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

describe('failed refunds, reconciled or resolved by an operator', () => {
  it('shows them as failed; a signed chain refund is decided by its hash first (landed: done, nothing re-sent)', async () => {
    const row = await failedRefund('chain', true);
    expect((await moneySummary(ctx)).refunds_failed.map((r) => r.id)).toContain(row.id);
    const after = await reconcileRefund(ctx, alice, row.id);
    expect(after).toMatchObject({ state: 'done', reference: row.reference });
    expect(calls).toMatchObject({ checkRefund: 1, sendRefund: 0 });
    expect((await moneySummary(ctx)).refunds_failed.map((r) => r.id)).not.toContain(row.id);
    const [action] = await ctx.db
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.targetId, String(row.id)));
    expect(action).toMatchObject({ operator: 'alice', action: 'refund.reconcile', detail: { to: 'sending', rail: 'chain' } });
  });

  it('a signed chain refund that provably did not land is queued to be sent again (after its back-off), never sent while it could land', async () => {
    refundStatus = { status: 'resend', reason: 'dropped: its nonce was used by another transaction' };
    const row = await failedRefund('chain', true);
    const after = await reconcileRefund(ctx, alice, row.id);
    expect(after).toMatchObject({ state: 'pending', attempts: 1 });
    expect(calls.sendRefund).toBe(0);
  });

  it('a card refund runs again under the same processor idempotency key', async () => {
    const row = await failedRefund('card', false);
    const after = await reconcileRefund(ctx, alice, row.id);
    expect(after).toMatchObject({ state: 'done', reference: 're_1' });
    expect(calls.cardRefunds).toEqual([`refund:${row.idempotencyKey}`]);
    await expect(reconcileRefund(ctx, alice, row.id)).rejects.toThrow(/is done, not failed/);
  });

  it('resolve records a refund settled outside the service, with the note', async () => {
    const row = await failedRefund('chain', false);
    await expect(resolveRefund(ctx, alice, 999_999, 'x')).rejects.toThrow(/no refund/);
    const after = await resolveRefund(ctx, alice, row.id, 'sent by hand, tx 0x99');
    expect(after).toMatchObject({ state: 'done', last_error: 'resolved by alice: sent by hand, tx 0x99' });
  });
});
