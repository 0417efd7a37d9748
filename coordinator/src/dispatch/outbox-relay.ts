import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { asc, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { outbox } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * Relays committed outbox rows to JetStream, oldest first, then marks them published.
 * A crash between publish and mark re-sends the row, and JetStream drops it as a duplicate
 * (msgID = outbox id): no lost and no doubled work. `notify()` runs it at once; a poll
 * catches rows written by other coordinators.
 */
export function startOutboxRelay(deps: { db: Db; nc: NatsConnection; clock: Clock; logger: Logger; pollMs?: number }) {
  const js = jetstream(deps.nc);
  let running = false;
  let again = false;
  let stopped = false;

  async function drain(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const rows = await deps.db.select().from(outbox).where(isNull(outbox.publishedAt)).orderBy(asc(outbox.id)).limit(100);
        const sent: number[] = [];
        for (const row of rows) {
          await js.publish(row.subject, JSON.stringify(row.payload), { msgID: `outbox-${row.id}` });
          sent.push(row.id);
        }
        if (sent.length) {
          await deps.db.update(outbox).set({ publishedAt: deps.clock.now() }).where(inArray(outbox.id, sent));
          if (sent.length === 100) again = true;
        }
      } while (again && !stopped);
    } catch (err) {
      deps.logger.warn({ err }, 'outbox relay failed; will retry');
    } finally {
      running = false;
    }
  }

  const timer = setInterval(() => void drain(), deps.pollMs ?? 1000);
  void drain();
  return {
    notify: () => void drain(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (running) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
