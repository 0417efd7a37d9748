import { jetstream, type Consumer } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { WORK_STREAM, workConsumerName, type WorkKind } from '@cutroom/proto';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

/**
 * The coordinator owns the work stream and its consumers; an agent only binds to them. At
 * start-up (or after the coordinator recreated them) they may not exist yet, so this waits,
 * asking once a second, until they do or `signal` aborts.
 */
export async function getWorkConsumer(nc: NatsConnection, kind: WorkKind, signal: AbortSignal, logger: Logger, clock: Clock): Promise<Consumer> {
  const js = jetstream(nc);
  const name = workConsumerName(kind);
  for (let tries = 0; ; tries++) {
    signal.throwIfAborted();
    try {
      return await js.consumers.get(WORK_STREAM, name);
    } catch (err) {
      // Every 30 s is enough to tell an operator what we are waiting for.
      if (tries % 30 === 0)
        logger.info({ stream: WORK_STREAM, consumer: name, err: (err as Error).message }, 'waiting for the coordinator to create the work consumer');
      await clock.sleep(1_000, signal);
    }
  }
}
