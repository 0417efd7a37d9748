import { mkdirSync } from 'node:fs';
import { execa, type ResultPromise } from 'execa';
import { freePort, waitForPort } from './free-port.ts';

export interface NatsChild {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `nats-server` with JetStream as a child process storing under `storeDir`.
 * Debian's nats-server 2.9 is enough: every consumer has a single filter subject.
 */
export async function startNatsServer(opts: { storeDir: string; port?: number; bin?: string }): Promise<NatsChild> {
  mkdirSync(opts.storeDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const child: ResultPromise = execa(opts.bin ?? 'nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', opts.storeDir], {
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
