import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { natsAuthKeys, type NatsAuthSeeds } from '../nats-auth/keys.ts';
import { natsServerAuthConfig } from '../nats-auth/server-config.ts';
import { freePort, waitForPort } from './free-port.ts';

export interface NatsChild {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `nats-server` with JetStream as a child process storing under `storeDir`, listening on
 * loopback only. `authConfig`: the authorization part of its configuration
 * (nats-auth/server-config.ts); the whole file is written under `storeDir` (mode 0600).
 * Debian's nats-server 2.9 is enough: every consumer has a single filter subject.
 */
export async function startNatsServer(opts: { storeDir: string; authConfig?: string; port?: number; bin?: string }): Promise<NatsChild> {
  mkdirSync(opts.storeDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const conf = join(opts.storeDir, 'server.conf');
  writeFileSync(conf, `listen: "127.0.0.1:${port}"\njetstream { store_dir: ${JSON.stringify(opts.storeDir)} }\n${opts.authConfig ?? ''}`, { mode: 0o600 });
  const child: ResultPromise = execa(opts.bin ?? 'nats-server', ['-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
    reject: false,
    cleanup: true,
  });
  let exited = false;
  void child.then(() => {
    exited = true;
  });
  try {
    await waitForPort(port, 10_000);
  } catch (err) {
    child.kill();
    const stderr = (await child).stderr;
    throw new Error(`nats-server did not start: ${String(stderr).slice(-500)}`, { cause: err });
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await Promise.race([child, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}

/** A nats-server child that trusts these seeds (docs/adr/0009): the embedded default's, and the benchmarks'. */
export async function startAuthenticatedNats(opts: { storeDir: string; seeds: NatsAuthSeeds }): Promise<NatsChild> {
  const authConfig = await natsServerAuthConfig(natsAuthKeys(opts.seeds), join(opts.storeDir, 'accounts'));
  return startNatsServer({ storeDir: opts.storeDir, authConfig });
}
