/**
 * `npm run bench`, third part: understanding through the whole service (REST, PGlite, local
 * blobs, JetStream, one render-agent child with faster-whisper, the embedding model and the local
 * text model) on a synthesized talk of distinct topics, against faster-whisper run directly on
 * the same file, in one run.
 *
 * - find_clips: wall time from POST /jobs to `completed`, split into transcription (until the job
 *   reports `analyzing`), embeddings, segmentation, candidates and generation (the clips document's
 *   own timings_ms), and the ratio of the service's transcription to the raw tool's.
 * - summarize: the same talk, its wall time and the split of its analysis.
 * - memory: the peak resident set of the agent's process tree (node + the whisper child), sampled
 *   every 250 ms, so the figure for a long recording can be read off a run with a long talk.
 *
 * Usage: bench-understand.ts [minutes of talk; default 10] [--no-summarize]
 * The talk is the five topics of test/harness/media-gen/topic-talk.ts read at a rate that makes
 * them last `minutes` (the text repeats for talks longer than ~13 min).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { loadCoordinatorConfig } from '../coordinator/src/config.ts';
import { localAgentAuth, startAgentChild } from '../coordinator/src/embedded/agent-children.ts';
import { freePort } from '../coordinator/src/embedded/free-port.ts';
import { startAuthenticatedNats } from '../coordinator/src/embedded/nats-server.ts';
import { newNatsAuthSeeds } from '../coordinator/src/nats-auth/keys.ts';
import { startCoordinator } from '../coordinator/src/server.ts';
import { ClipsV1 } from '../shared/src/clips/clips-v1.ts';
import { SummaryV1 } from '../shared/src/summary/summary-v1.ts';
import { apiClient } from '../test/harness/api.ts';
import { makeTopicTalk, TOPIC_TEXTS } from '../test/harness/media-gen/topic-talk.ts';

const root = resolve(import.meta.dirname, '..');
const minutes = Number(process.argv[2] ?? 10);
const withSummarize = !process.argv.includes('--no-summarize');
const work = mkdtempSync(join(tmpdir(), 'cutroom-bench-understand-'));

// --- the talk ------------------------------------------------------------------------------
// At 150 words per minute the five topics last 12.8 min; the rate scales the length, and talks
// longer than the text at 150 wpm repeat it.
const NATIVE_MINUTES = 12.8;
const rounds = Math.max(1, Math.ceil(minutes / NATIVE_MINUTES));
const topics = Array.from({ length: rounds }, () => TOPIC_TEXTS).flat();
const wpm = Math.round((150 * NATIVE_MINUTES * rounds) / minutes);
console.log(`preparing a ${minutes}-minute talk: ${topics.length} topics read by espeak-ng at ${wpm} words/min…`);
const talk = await makeTopicTalk(work, { topics, wordsPerMinute: wpm });
console.log(
  `input: ${talk.duration.toFixed(1)} s (16 kHz WAV), true topic boundaries at ${talk.boundaries.map((b) => b.toFixed(0)).join(', ')} s; ` +
    `${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
);

// --- the agent's memory --------------------------------------------------------------------
/** Resident set of a process and all its descendants, bytes (from /proc). */
function treeRss(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while being read
    }
  }
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      total += Number(m?.[1] ?? 0) * 1024;
    } catch {
      // ended
    }
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

// --- through the service -------------------------------------------------------------------
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

let peakRss = 0;
const sampler = setInterval(() => {
  if (agent.process.pid) peakRss = Math.max(peakRss, treeRss(agent.process.pid));
}, 250);

interface Timed {
  seconds: number;
  /** Seconds from POST /jobs until the job was seen `analyzing` (upload + audio + transcription). */
  untilAnalyzing: number;
  doc: unknown;
}

async function run(jobType: 'find_clips' | 'summarize', role: string): Promise<Timed> {
  const t0 = performance.now();
  const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: jobType, filename: 'talk.wav', content_type: 'audio/wav' } });
  if (created.status !== 201) throw new Error(`POST /jobs ${jobType} → ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.job_id as string;
  const up = await api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
  const put = await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(talk.wav) });
  if (!put.ok) throw new Error(`PUT upload → ${put.status}`);
  const done = await api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token });
  if (done.status !== 200) throw new Error(`complete-upload → ${done.status} ${JSON.stringify(done.body)}`);
  let untilAnalyzing = 0;
  const job = await api.waitForJob(
    token,
    id,
    (j) => {
      if (j.status === 'analyzing' && untilAnalyzing === 0) untilAnalyzing = (performance.now() - t0) / 1000;
      if (j.progress) bar(j.progress.fraction, `${jobType} ${j.progress.stage}`);
      return ['completed', 'failed'].includes(j.status);
    },
    90 * 60_000,
  );
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write('\n');
  if (job.status !== 'completed') throw new Error(`${jobType} failed: ${job.error_message}`);
  const link = await api.call('GET', `/api/v1/jobs/${id}/outputs/${role}/download`, { token });
  const doc: unknown = await (await fetch(link.body.download_url)).json();
  return { seconds, untilAnalyzing, doc };
}

function bar(fraction: number, label: string): void {
  const width = 30;
  const n = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  process.stdout.write(`\r  [${'#'.repeat(n)}${'.'.repeat(width - n)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label.padEnd(26)}`);
}

const s = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(1)} s`;

console.log('find_clips through the service: POST /jobs → upload → complete-upload → poll until completed');
const clipsRun = await run('find_clips', 'clips');
const clips = { ...clipsRun, doc: ClipsV1.parse(clipsRun.doc) };
let summary: (Timed & { doc: SummaryV1 }) | null = null;
if (withSummarize) {
  console.log('summarize through the service, same talk');
  const r = await run('summarize', 'summary');
  summary = { ...r, doc: SummaryV1.parse(r.doc) };
}
clearInterval(sampler);
await agent.stop();
await coordinator.stop();
await nats.stop();

// --- the raw tool on the same file ---------------------------------------------------------
console.log('raw: faster-whisper WhisperModel.transcribe on the same file (model load included)');
const raw = await execa(join(root, '.venv/bin/python'), [join(root, 'scripts/bench/raw_whisper.py'), talk.wav, join(root, 'render-agent/python'), 'tiny.en'], {
  env: { HF_HUB_OFFLINE: '1' },
});
const rawSeconds = (JSON.parse(raw.stdout) as { seconds: number }).seconds;

const t = clips.doc.generator.timings_ms;
console.log(
  `\nfind_clips on ${talk.duration.toFixed(0)} s of speech (${clips.doc.candidates.length} candidates, text model: ${clips.doc.generator.text_generator})`,
);
console.log(`  total ${clips.seconds.toFixed(1)} s = upload + transcription ${clips.untilAnalyzing.toFixed(1)} s + analysis ${s(t.total)} + hand-off`);
console.log(`  analysis: embeddings ${s(t.embeddings)}, segmentation ${s(t.segmentation)}, candidates ${s(t.candidates)}, generation ${s(t.generation)}`);
console.log(
  `  transcription through the service ${clips.untilAnalyzing.toFixed(1)} s vs raw faster-whisper ${rawSeconds.toFixed(1)} s: ratio ${(clips.untilAnalyzing / rawSeconds).toFixed(2)}`,
);
for (const c of clips.doc.candidates) {
  console.log(`  ${c.id} ${c.start.toFixed(1)}-${c.end.toFixed(1)} s score ${c.score} [${c.texts_source.title}] ${c.title}`);
}
if (summary) {
  const st = summary.doc.generator.timings_ms;
  console.log(
    `summarize: total ${summary.seconds.toFixed(1)} s = upload + transcription ${summary.untilAnalyzing.toFixed(1)} s + analysis ${s(st.total)} ` +
      `(${Object.entries(st)
        .filter(([k]) => k !== 'total')
        .map(([k, v]) => `${k} ${s(v)}`)
        .join(
          ', ',
        )}); ${summary.doc.chapters.length} chapters, ${summary.doc.key_points.length} key points, text model: ${summary.doc.generator.text_generator}`,
  );
}
console.log(`agent peak resident memory (node + whisper child): ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
// The documents themselves, to read (or paste) after the run.
const keep = join(tmpdir(), 'cutroom-bench-understand-out');
mkdirSync(keep, { recursive: true });
writeFileSync(join(keep, 'clips.json'), JSON.stringify(clips.doc, null, 2));
if (summary) writeFileSync(join(keep, 'summary.json'), JSON.stringify(summary.doc, null, 2));
writeFileSync(
  join(keep, 'talk.json'),
  JSON.stringify({ duration: talk.duration, boundaries: talk.boundaries, topics: talk.topics.map((t) => [t.name, t.start, t.end]) }, null, 2),
);
console.log(`documents written to ${keep}`);
rmSync(work, { recursive: true, force: true });
