// Whose turn it is to send a relayer transaction, and with which nonce.
//
// Every coordinator replica relays payments and sends refunds from one relayer key. A replica that
// counted nonces on its own would sign with the same nonce as another: one of the two transactions
// is refused (a payment answered 503 for nothing), or, for two equal refunds to one payer, both
// replicas sign the *same bytes* and one transaction marks two refunds done. So the turn and the
// nonce live in Postgres (`relayer_nonces`, one row per chain and relayer): a replica sends only
// while it holds the row's lease, takes the nonce from the row (or the chain's pending count, if
// higher: a transaction sent from the key by something else), and moves the row past it once the
// transaction may have reached the node. Replicas take turns; a replica that dies holding the turn
// loses it when its lease runs out.
//
// Only estimate + sign + record + broadcast run inside a turn (about one RPC round trip each);
// waiting for receipts does not.
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { relayerNonces } from '../../db/schema.ts';
import { runSerially } from './relayer-queue.ts';

/** One turn: the lowest nonce it may use, and a check that it still holds the turn. */
export interface Turn {
  /** The lowest nonce this turn may sign with (the chain's pending count may be higher). */
  floor: number;
  /** Whether this turn still holds the relayer (renews its lease): checked right before a broadcast. */
  stillHeld(): Promise<boolean>;
}

export interface RelayerTurns {
  /**
   * Runs `fn` in this relayer's turn. `fn` returns its result and the nonce it used: a number once
   * its transaction may have reached the node (the next turn starts above it), null when nothing
   * was broadcast (the nonce is free again).
   */
  run<T>(fn: (turn: Turn) => Promise<{ result: T; used: number | null }>): Promise<T>;
}

/** Turns within one process only (a single coordinator, and the rail's own tests): callers queue, nonces counted here. */
export function localRelayerTurns(key: string): RelayerTurns {
  let floor = 0;
  return {
    run: (fn) =>
      runSerially(`local:${key}`, async () => {
        const { result, used } = await fn({ floor, stillHeld: async () => true });
        if (used !== null) floor = Math.max(floor, used + 1);
        return result;
      }),
  };
}

export interface PgRelayerTurnsOptions {
  chainId: number;
  /** The relayer's address (any case). */
  address: string;
  /** A turn not renewed (its holder died) is free again after this long; a live holder renews it every third of it. @default 15_000 */
  leaseMs?: number;
  /** Give up waiting for a turn after this long (nothing is sent: the caller's payment is unavailable, not charged). @default 30_000 */
  waitMs?: number;
}

/** Turns shared by every process on one Postgres. Within a process callers queue first, so they do not poll against each other. */
export function pgRelayerTurns(db: Db, opts: PgRelayerTurnsOptions): RelayerTurns {
  const chainId = opts.chainId;
  const address = opts.address.toLowerCase();
  const leaseMs = opts.leaseMs ?? 15_000;
  const waitMs = opts.waitMs ?? 30_000;
  const row = and(eq(relayerNonces.chainId, chainId), eq(relayerNonces.address, address));
  const leaseEnd = sql`now() + ${`${leaseMs} milliseconds`}::interval`;

  async function take(holder: string): Promise<number> {
    await db.insert(relayerNonces).values({ chainId, address, nextNonce: 0, updatedAt: new Date() }).onConflictDoNothing();
    const deadline = Date.now() + waitMs;
    for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
      const [got] = await db
        .update(relayerNonces)
        .set({ holder, leaseUntil: leaseEnd, updatedAt: sql`now()` })
        .where(and(row, or(isNull(relayerNonces.holder), lt(relayerNonces.leaseUntil, sql`now()`))))
        .returning({ next: relayerNonces.nextNonce });
      if (got) return got.next;
      if (Date.now() > deadline) throw new Error('chain rail: the relayer stayed busy with another replica; nothing was sent');
      await new Promise((r) => setTimeout(r, wait + Math.floor(Math.random() * wait)));
    }
  }

  // This instance's callers queue before they ask Postgres (one instance per rail per process).
  const queueKey = `pg:${chainId}:${address}:${randomUUID()}`;
  return {
    run: (fn) =>
      runSerially(queueKey, async () => {
        const holder = randomUUID();
        const floor = await take(holder);
        const renew = async () => {
          const held = await db
            .update(relayerNonces)
            .set({ leaseUntil: leaseEnd })
            .where(and(row, eq(relayerNonces.holder, holder)))
            .returning({ holder: relayerNonces.holder });
          return held.length > 0;
        };
        // A live holder keeps its turn however slow the node is; a dead one loses it after leaseMs.
        const heartbeat = setInterval(() => void renew().catch(() => undefined), Math.max(50, Math.floor(leaseMs / 3)));
        heartbeat.unref();
        let used: number | null = null;
        try {
          const out = await fn({ floor, stillHeld: renew });
          used = out.used;
          return out.result;
        } finally {
          clearInterval(heartbeat);
          // The nonce moves on whoever holds the row now (GREATEST never goes back); the turn is given up only if still ours.
          if (used !== null) {
            await db
              .update(relayerNonces)
              .set({ nextNonce: sql`greatest(${relayerNonces.nextNonce}, ${used + 1})`, updatedAt: sql`now()` })
              .where(row);
          }
          await db
            .update(relayerNonces)
            .set({ holder: null, leaseUntil: null, updatedAt: sql`now()` })
            .where(and(row, eq(relayerNonces.holder, holder)));
        }
      }),
  };
}
