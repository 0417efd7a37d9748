import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries } from '../db/schema.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import type { SignedTx } from './rails/chain-rail.ts';
import { processRefunds } from './refunder.ts';

// The chain refund's claim fence, with a chain rail that records what it broadcasts (the rail
// itself is tested against anvil in test/chain-rail.test.ts).
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const payer = `0x${'ab'.repeat(20)}` as const;

async function queueRefund(key: string): Promise<number> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(ledgerEntries)
    .values({
      rail: 'chain',
      kind: 'refund',
      amount: 250_000n,
      currency: 'USDC',
      state: 'pending',
      payer: `eip155:31337:${payer}`,
      idempotencyKey: key,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: ledgerEntries.id });
  return row!.id;
}

describe('chain refunds: one transfer per refund, whoever crashes or stalls', () => {
  it('a sender that stalls past the stale bound before recording never broadcasts, even while the next sender is mid-send', async () => {
    const id = await queueRefund('refund:stalled-sender');
    const broadcast: string[] = [];
    const gates: (() => void)[] = [];
    let n = 0;
    const chain = {
      chainId: 31337,
      async sendRefund(_to: string, _amount: bigint, onSigned?: (tx: SignedTx) => Promise<void>): Promise<SignedTx> {
        const tx = { hash: `0x${String(++n).padStart(64, '0')}`, raw: '0x01' } as SignedTx;
        await new Promise<void>((resume) => gates.push(resume)); // estimating and signing, as long as the test says
        await onSigned?.(tx);
        broadcast.push(tx.hash);
        return tx;
      },
      awaitRefund: async (tx: SignedTx) => ({ status: 'done' as const, txHash: tx.hash }),
      checkRefund: async (tx: SignedTx) => ({ status: 'done' as const, txHash: tx.hash }),
    };
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((r) => setTimeout(r, 5));
    };
    const billing = ctx.billing as { chain: unknown };
    const before = billing.chain;
    billing.chain = chain;
    try {
      const first = processRefunds(ctx); // claims, then stalls before recording its transfer
      await until(() => gates.length === 1);
      ctx.clock.advance(31_000);
      await processRefunds(ctx); // the claim is stale with nothing recorded: requeued
      ctx.clock.advance(2_000);
      const second = processRefunds(ctx); // claimed again; this sender is mid-send too
      await until(() => gates.length === 2);
      gates[0]!(); // the stalled sender wakes up first: its record is refused, it broadcasts nothing
      await first;
      gates[1]!();
      await second;
    } finally {
      billing.chain = before;
    }
    expect(broadcast).toEqual([`0x${'2'.padStart(64, '0')}`]);
    const [row] = await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id));
    expect(row).toMatchObject({ state: 'done', reference: broadcast[0] });
  });
});
