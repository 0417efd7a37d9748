import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayerNonces } from '../../db/schema.ts';
import { createEngineCtx, type EngineCtx } from '../../testing/engine-ctx.ts';
import { pgRelayerTurns } from './relayer-turns.ts';

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pgRelayerTurns: replicas take turns on one relayer through Postgres', () => {
  it('two replicas sending at once never overlap and never reuse a nonce', async () => {
    // Two instances stand for two coordinator processes (each has its own in-process queue).
    const replicas = [pgRelayerTurns(ctx.db, { chainId: 1, address: ADDRESS }), pgRelayerTurns(ctx.db, { chainId: 1, address: ADDRESS.toLowerCase() })];
    let inside = 0;
    let maxInside = 0;
    const used: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        replicas[i % 2]!.run(async (turn) => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await sleep(5);
          inside--;
          used.push(turn.floor);
          return { result: undefined, used: turn.floor };
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(used).toEqual(Array.from({ length: 12 }, (_, i) => i));
    const [row] = await ctx.db.select().from(relayerNonces).where(eq(relayerNonces.chainId, 1));
    expect(row).toMatchObject({ nextNonce: 12, holder: null });
  });

  it('a turn that broadcast nothing gives its nonce back; one that may have broadcast keeps it, even when it throws', async () => {
    const turns = pgRelayerTurns(ctx.db, { chainId: 2, address: ADDRESS });
    await turns.run(async () => ({ result: undefined, used: null }));
    expect(await turns.run(async (turn) => ({ result: turn.floor, used: turn.floor }))).toBe(0);
    await expect(
      turns.run(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await turns.run(async (turn) => ({ result: turn.floor, used: null }))).toBe(1);
  });

  it('a replica that died holding the turn loses it when its lease runs out; the next turn starts at next_nonce', async () => {
    // What a replica killed mid-turn leaves: the row held, its lease running out, next_nonce past what it had sent before.
    await ctx.db.insert(relayerNonces).values({
      chainId: 3,
      address: ADDRESS.toLowerCase(),
      nextNonce: 5,
      holder: 'dead-replica',
      leaseUntil: new Date(Date.now() + 400),
      updatedAt: new Date(),
    });
    const b = pgRelayerTurns(ctx.db, { chainId: 3, address: ADDRESS });
    const started = Date.now();
    const floor = await b.run(async (turn) => ({ result: turn.floor, used: turn.floor }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(floor).toBe(5);
    const [row] = await ctx.db.select().from(relayerNonces).where(eq(relayerNonces.chainId, 3));
    expect(row).toMatchObject({ nextNonce: 6, holder: null });
  });

  it('a live holder keeps its turn past the lease however slow it is (renewed); the other replica waits for it', async () => {
    const a = pgRelayerTurns(ctx.db, { chainId: 5, address: ADDRESS, leaseMs: 300 });
    const b = pgRelayerTurns(ctx.db, { chainId: 5, address: ADDRESS, leaseMs: 300 });
    const order: string[] = [];
    const aRun = a.run(async (turn) => {
      order.push('a starts');
      await sleep(1_000);
      const held = await turn.stillHeld();
      order.push(`a ends, held ${held}`);
      return { result: undefined, used: turn.floor };
    });
    await sleep(50);
    const bFloor = await b.run(async (turn) => {
      order.push('b starts');
      return { result: turn.floor, used: turn.floor };
    });
    await aRun;
    expect(order).toEqual(['a starts', 'a ends, held true', 'b starts']);
    expect(bFloor).toBe(1);
  });

  it('gives up waiting for a turn that is never released, sending nothing', async () => {
    const holder = pgRelayerTurns(ctx.db, { chainId: 4, address: ADDRESS, leaseMs: 10_000 });
    const waiter = pgRelayerTurns(ctx.db, { chainId: 4, address: ADDRESS, waitMs: 200 });
    let release!: () => void;
    const held = holder.run(async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return { result: undefined, used: null };
    });
    await sleep(50);
    await expect(waiter.run(async () => ({ result: undefined, used: 0 }))).rejects.toThrow(/busy with another replica; nothing was sent/);
    release();
    await held;
  });
});
