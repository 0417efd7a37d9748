// The work stream on a three-node NATS JetStream cluster, as deploy/compose runs it: the coordinator
// connects with the list of servers (NATS_URL), creates the stream with NATS_STREAM_REPLICAS=3, and a
// restart does not undo it; with one node killed, a wake-up published before is still delivered.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORK_STREAM, workConsumerName, workSubject } from '@cutroom/proto';
import { connectNats, ensureWorkStream } from '../coordinator/src/dispatch/nats-setup.ts';
import { canConnect, freePort, waitFor } from './fixtures/index.ts';
import { assertAlive, startTrackedProcess, type TrackedProcess } from './fixtures/tracked-process.ts';

interface Node {
  name: string;
  url: string;
  proc: TrackedProcess;
}

let nodes: Node[] = [];
let nc: NatsConnection | undefined;

beforeAll(async () => {
  const ports = await Promise.all([0, 1, 2].map(async () => ({ client: await freePort(), cluster: await freePort() })));
  const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(',');
  nodes = await Promise.all(
    ports.map(async (p, i) => {
      const name = `nats-${i + 1}`;
      const dir = await mkdtemp(join(tmpdir(), `cutroom-${name}-`));
      const args = ['-js', '-a', '127.0.0.1', '-p', String(p.client), '-sd', dir, '-n', name];
      args.push('--cluster_name', 'cutroom', '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', routes);
      return { name, url: `nats://127.0.0.1:${p.client}`, proc: startTrackedProcess('nats-server', args, { tempDir: dir }) };
    }),
  );
  await Promise.all(
    nodes.map((n) =>
      waitFor(
        () => {
          assertAlive(n.proc, `nats-server ${n.name}`);
          return canConnect(Number(new URL(n.url).port));
        },
        30_000,
        { description: `${n.name} to accept clients` },
      ),
    ),
  );
}, 60_000);

afterAll(async () => {
  await nc?.close().catch(() => undefined);
  await Promise.all(nodes.map((n) => n.proc.stop('SIGTERM')));
});

describe('work stream on a three-node JetStream cluster', () => {
  it('keeps three copies (a restart keeps them) and delivers a wake-up after the loss of one node', async () => {
    nc = await connectNats(nodes.map((n) => n.url).join(', '), 'cluster-test');
    // The JetStream meta group elects a leader a moment after the routes connect.
    await waitFor(
      async () =>
        ensureWorkStream(nc!, { ackWaitMs: 60_000, replicas: 3 }).then(
          () => true,
          () => false,
        ),
      30_000,
      { description: 'the cluster to create the work stream', intervalMs: 500 },
    );
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(WORK_STREAM);
    expect(info.config.num_replicas).toBe(3);
    // A coordinator's next start updates the stream with the same setting: still three.
    await ensureWorkStream(nc, { ackWaitMs: 60_000, replicas: 3 });
    const again = await jsm.streams.info(WORK_STREAM);
    expect(again.config.num_replicas).toBe(3);
    expect((again.cluster?.replicas ?? []).length).toBe(2);

    await jetstream(nc).publish(workSubject('transcribe'), JSON.stringify({ v: 1, job_id: 'cluster-job', kind: 'transcribe' }), {
      msgID: 'outbox-cluster-1',
    });
    // Kill the stream's leader: one of the two copies takes over with the message.
    const leader = again.cluster?.leader;
    const victim = nodes.find((n) => n.name === leader) ?? nodes[0]!;
    await victim.proc.stop('SIGKILL');
    let delivered: string | undefined;
    await waitFor(
      async () => {
        try {
          const consumer = await jetstream(nc!).consumers.get(WORK_STREAM, workConsumerName('transcribe'));
          const msg = await consumer.next({ expires: 2000 });
          if (!msg) return false;
          delivered = (msg.json() as { job_id: string }).job_id;
          msg.ack();
          return true;
        } catch {
          return false;
        }
      },
      45_000,
      { description: `the wake-up after ${victim.name} (leader ${leader}) was killed`, intervalMs: 500 },
    );
    expect(delivered).toBe('cluster-job');
  }, 120_000);
});
