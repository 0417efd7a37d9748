import { connect, nanos, type Authenticator, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, RetentionPolicy, StorageType, jetstreamManager } from '@nats-io/jetstream';
import { WORK_KINDS, WORK_STREAM, WORK_SUBJECT_PREFIX, workConsumerName, workSubject } from '@cutroom/proto';

/**
 * `url`: one server, or a cluster's servers separated by commas (the client fails over between
 * them). `authenticator`: the coordinator's user (nats-auth/); `onReconnect` runs after each
 * reconnection.
 */
export async function connectNats(url: string, name: string, authenticator?: Authenticator, onReconnect?: () => void): Promise<NatsConnection> {
  const servers = url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const nc = await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 1000, ...(authenticator && { authenticator }) });
  if (onReconnect)
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') onReconnect();
    })();
  return nc;
}

/**
 * Creates (or updates) the work-queue stream and one durable pull consumer per work kind.
 * ack_wait is generous because agents call working() at half the lease; the database lease,
 * not JetStream redelivery, decides when a stuck attempt is taken over. `replicas` (a cluster's
 * copies of the stream) is set on create and on every update, so a restart keeps (or applies) it.
 */
export async function ensureWorkStream(nc: NatsConnection, opts: { ackWaitMs: number; replicas?: number }): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = {
    name: WORK_STREAM,
    subjects: [`${WORK_SUBJECT_PREFIX}.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    // Outbox ids are the message ids: a re-relayed row inside this window is dropped.
    duplicate_window: nanos(10 * 60_000),
    num_replicas: opts.replicas ?? 1,
  };
  try {
    await jsm.streams.info(WORK_STREAM);
    await jsm.streams.update(WORK_STREAM, stream);
  } catch {
    await jsm.streams.add(stream);
  }
  for (const kind of WORK_KINDS) {
    const consumer = {
      durable_name: workConsumerName(kind),
      filter_subject: workSubject(kind),
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(opts.ackWaitMs),
      max_deliver: -1,
    };
    try {
      await jsm.consumers.info(WORK_STREAM, consumer.durable_name);
      await jsm.consumers.update(WORK_STREAM, consumer.durable_name, { ack_wait: consumer.ack_wait });
    } catch {
      await jsm.consumers.add(WORK_STREAM, consumer);
    }
  }
}
