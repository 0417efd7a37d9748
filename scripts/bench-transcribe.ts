/**
 * `npm run bench`: a few minutes of real speech through the whole service (REST, PGlite, local
 * blobs, JetStream, one render-agent, ffmpeg, faster-whisper) against the same faster-whisper
 * model run directly on the same file, in one run. Prints both times and service / raw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { loadCoordinatorConfig } from '../coordinator/src/config.ts';
import { defaultWhisperCpuThreads } from '../render-agent/src/config.ts';
import { localAgentAuth, startAgentChild } from '../coordinator/src/embedded/agent-children.ts';
import { freePort } from '../coordinator/src/embedded/free-port.ts';
import { startAuthenticatedNats } from '../coordinator/src/embedded/nats-server.ts';
import { newNatsAuthSeeds } from '../coordinator/src/nats-auth/keys.ts';
import { startCoordinator } from '../coordinator/src/server.ts';
import { apiClient } from '../test/harness/api.ts';
import { concatWavs, librivoxUtterances } from '../test/harness/media.ts';

const root = resolve(import.meta.dirname, '..');
const repeats = Number(process.argv[2] ?? 8);
const work = mkdtempSync(join(tmpdir(), 'cutroom-bench-'));
const audio = join(work, 'speech.wav');
await concatWavs(
  librivoxUtterances().map((u) => u.file),
  audio,
  repeats,
);
const { stdout: dur } = await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', audio]);
console.log(`input: ${Number(dur).toFixed(1)} s of LibriVox speech (16 kHz WAV), model tiny.en, cpu int8`);

function bar(fraction: number, label: string): void {
  const width = 30;
  const n = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  process.stdout.write(`\r  [${'#'.repeat(n)}${'.'.repeat(width - n)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label.padEnd(18)}`);
}

// --- through the service ---------------------------------------------------------------------
const natsSeeds = newNatsAuthSeeds();
const nats = await startAuthenticatedNats({ storeDir: join(work, 'nats'), seeds: natsSeeds });
const config = loadCoordinatorConfig({ PORT: String(await freePort()), DATA_DIR: join(work, 'data'), LOG_LEVEL: 'warn', NATS_URL: nats.url });
const secrets = { urlSigningSecret: 'bench-url-secret-0123456789' };
const coordinator = await startCoordinator(config, secrets, { natsUrl: nats.url, natsAuth: natsSeeds });
const agent = startAgentChild({
  id: 'bench-agent',
  coordinatorUrl: coordinator.agentUrl,
  natsUrl: nats.url,
  auth: await localAgentAuth(coordinator.ctx, { coordinatorUrl: coordinator.agentUrl, natsUrl: nats.url }, join(work, 'agents'), 'bench-agent'),
  env: { LOG_LEVEL: 'warn' },
});
const api = apiClient(coordinator.url);
await new Promise((r) => setTimeout(r, 3000)); // let the agent announce itself before the clock starts
const token = await api.newSession();
console.log('service: POST /jobs → upload → complete-upload → poll until completed');
const t0 = performance.now();
const id = await api.submitTranscribe(token, audio, 'speech.wav', 'audio/wav');
const job = await api.waitForJob(
  token,
  id,
  (j) => {
    if (j.progress) bar(j.progress.fraction, j.progress.stage);
    return ['completed', 'failed'].includes(j.status);
  },
  30 * 60_000,
);
const serviceSeconds = (performance.now() - t0) / 1000;
bar(1, job.status);
process.stdout.write('\n');
if (job.status !== 'completed') throw new Error(`bench job failed: ${job.error_message}`);
await agent.stop();
await coordinator.stop();
await nats.stop();

// --- the raw tool on the same file -----------------------------------------------------------
// With the agent's thread count (the ratio), then with CTranslate2's own default (the thread choice).
const threads = defaultWhisperCpuThreads();
const rawRun = async (n: number) => {
  const raw = await execa(
    join(root, '.venv/bin/python'),
    [join(root, 'scripts/bench/raw_whisper.py'), audio, join(root, 'render-agent/python'), 'tiny.en', String(n)],
    {
      env: { HF_HUB_OFFLINE: '1' },
    },
  );
  return (JSON.parse(raw.stdout) as { seconds: number }).seconds;
};
const label = (n: number) => (n === 0 ? "CTranslate2's default threads" : `${n} CPU thread${n === 1 ? '' : 's'}`);
console.log(`raw: faster-whisper WhisperModel.transcribe on the same file (model load included), ${label(threads)} as the agent runs it`);
const rawSeconds = await rawRun(threads);

console.log(
  `\nservice: ${serviceSeconds.toFixed(2)} s   raw faster-whisper: ${rawSeconds.toFixed(2)} s   ratio service/raw: ${(serviceSeconds / rawSeconds).toFixed(2)}`,
);
if (threads !== 0) {
  const defaultSeconds = await rawRun(0);
  console.log(
    `thread choice: raw with ${label(threads)} ${rawSeconds.toFixed(2)} s, with ${label(0)} ${defaultSeconds.toFixed(2)} s (${(defaultSeconds / rawSeconds).toFixed(2)} times as long)`,
  );
}
rmSync(work, { recursive: true, force: true });
