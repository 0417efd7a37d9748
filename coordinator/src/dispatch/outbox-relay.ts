import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { asc, inArray, isNull } from 'drizzle-orm';
import { WORK_STREAM } from '@cutroom/proto';
import type { Db } from '../db/database.ts';
import { outbox } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { ensureWorkStream } from './nats-setup.ts';

/** How often, at most, a failing relay checks whether the work stream is gone. */
const STREAM_CHECK_MS = 10_000;

/**
 * Relays committed outbox rows to JetStream, oldest first, then marks them published.
 * A crash between publish and mark re-sends the row, and JetStream drops it as a duplicate
 * (msgID = outbox id): no lost and no doubled work. `notify()` runs it at once; a poll
 * catches rows written by other coordinators.
 *
 * A nats-server that came back without its store has no work stream: publishing fails until the
 * stream and its consumers exist again, so a failing relay recreates them (agents rebind on
 * their own). The wake-ups the old stream held are gone; the sweeper's wake-up pass replaces them.
 */
export function startOutboxRelay(deps: {
  db: Db;
  nc: NatsConnection;
  clock: Clock;
  logger: Logger;
  pollMs?: number;
  /** ack_wait of the consumers it recreates (the coordinator's, see server.ts). @default 60 s */
  ackWaitMs?: number;
  /** The work stream's copies in a NATS cluster, when it must be recreated (NATS_STREAM_REPLICAS). */
  streamReplicas?: number;
}) {
  const js = jetstream(deps.nc);
  let running = false;
  let again = false;
  let stopped = false;
  let lastStreamCheck = 0;

  async function restoreStreamIfGone(): Promise<void> {
    const now = deps.clock.now().getTime();
    if (now - lastStreamCheck < STREAM_CHECK_MS) return;
    lastStreamCheck = now;
    try {
      await (await jetstreamManager(deps.nc)).streams.info(WORK_STREAM);
      return;
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) return;
    }
    deps.logger.warn({ stream: WORK_STREAM }, 'the work stream is gone (NATS lost its store?): recreating it and its consumers');
    await ensureWorkStream(deps.nc, { ackWaitMs: deps.ackWaitMs ?? 60_000, replicas: deps.streamReplicas });
  }

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
      await restoreStreamIfGone().catch((e: unknown) => deps.logger.warn({ err: e }, 'could not check or recreate the work stream'));
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
