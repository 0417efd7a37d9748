import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from './fixtures/index.ts';
import { apiClient } from './harness/api.ts';
import { librivoxUtterances } from './harness/media.ts';
import { wordErrorRate } from './harness/wer.ts';

const entry = resolve(import.meta.dirname, '../coordinator/src/embedded-main.ts');

/**
 * The embedded default exactly as `npm start` runs it (nats-server child with auth, PGlite, local blobs,
 * one agent child): transcribe a file, stop it, start it again on the same data folder, and the
 * job and its outputs are still there.
 */
describe('embedded default (npm start)', () => {
  // Made by hand with a shell's usual umask (0755): the service must close it.
  const dataDir = join(mkdtempSync(join(tmpdir(), 'cutroom-embedded-')), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  let child: ResultPromise | undefined;

  async function start(port: number): Promise<{ ms: number; output: () => string }> {
    const t0 = Date.now();
    let out = '';
    child = execa(process.execPath, [entry], { env: { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, all: true, reject: false });
    child.all?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await waitFor(async () => out.includes('cutroom is running at'), 60_000, { description: 'embedded default to print its URL' });
    return { ms: Date.now() - t0, output: () => out };
  }

  async function stop(): Promise<number | undefined> {
    child?.kill('SIGTERM');
    const r = await child;
    child = undefined;
    return r?.exitCode;
  }

  afterAll(async () => {
    await stop();
  });

  it('transcribes, survives a restart, and starts again in seconds', async () => {
    const port = await freePort();
    const first = await start(port);
    expect(first.output()).toContain(`http://127.0.0.1:${port}`);
    expect(first.output()).toContain('billing: off');
    const api = apiClient(`http://127.0.0.1:${port}`);
    const token = await api.newSession();
    const u = librivoxUtterances()[0]!;
    const id = await api.submitTranscribe(token, u.file, 'one.wav', 'audio/wav');
    const job = await api.waitForJob(token, id, undefined, 120_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(await stop()).toBe(0);

    const second = await start(port);
    expect(second.ms).toBeLessThan(15_000);
    const again = await api.call('GET', `/api/v1/jobs/${id}`, { token });
    expect(again.body.status).toBe('completed');
    // Its nats-server takes no connection without a credential (docs/adr/0009): the agent used its own.
    const natsPort = /listen: "127\.0\.0\.1:(\d+)"/.exec(readFileSync(join(dataDir, 'nats/server.conf'), 'utf8'))![1];
    await expect(connect({ servers: `127.0.0.1:${natsPort}`, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization Violation/i);
    const srt = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download`, { token });
    const text = await (await fetch(srt.body.download_url)).text();
    expect(wordErrorRate(u.reference, text.replace(/^\d+\n.*-->.*$/gm, ''))).toBeLessThan(0.25);
    expect(await stop()).toBe(0);

    // The data folder and everything in it (database, nats store, blobs, secrets, agent credentials) is the service user's alone.
    const open: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isSymbolicLink()) continue;
        if ((statSync(p).mode & 0o077) !== 0) open.push(`${p} ${(statSync(p).mode & 0o777).toString(8)}`);
        if (e.isDirectory()) walk(p);
      }
    };
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    walk(dataDir);
    expect(open).toEqual([]);
  });
});
