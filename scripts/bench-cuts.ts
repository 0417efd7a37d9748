/**
 * `npm run bench`, second part: cuts through the whole service (REST, PGlite, local blobs,
 * JetStream, one render-agent, ffmpeg) against the very ffmpeg commands the agent ran, replayed
 * directly on the same local file, in one run. Cases: a 60 s `extract_vertical_clip`
 * (vidA-primary, subject center) and a 10-segment `extract_clip` (6 s each), each timed from
 * POST /jobs/{id}/process to `completed`. Prints service s, raw s, the ratio (goal <= 1.10), the
 * encode fps, and where the service's time and the machine's CPU went.
 *
 * The raw commands come from the agent itself: FFMPEG_PATH / FFPROBE_PATH point at a recorder
 * (bash) that writes each argv, its start/end and its CPU time, then runs the real tool; the raw
 * replay goes through the same recorder, so both sides pay its few ms. The ffmpeg runners take no
 * logger, so this needs no change to the agent. Each case's raw replay runs right after its
 * service run (the service idle), so both see the same background load.
 *
 * Usage: bench-cuts.ts [source repeats of the LibriVox set, ~27 s each; default 6] [1080|720; default 1080]
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { loadCoordinatorConfig } from '../coordinator/src/config.ts';
import { freePort } from '../coordinator/src/embedded/free-port.ts';
import { localAgentAuth } from '../coordinator/src/embedded/agent-children.ts';
import { startAuthenticatedNats } from '../coordinator/src/embedded/nats-server.ts';
import { newNatsAuthSeeds } from '../coordinator/src/nats-auth/keys.ts';
import { startCoordinator } from '../coordinator/src/server.ts';
import { apiClient } from '../test/harness/api.ts';
import { concatWavs, librivoxUtterances } from '../test/harness/media.ts';
import { makePatch } from '../test/harness/media-gen/moving-face.ts';
import type { SubjectsV1 } from '../shared/src/clips/subjects-v1.ts';

const root = resolve(import.meta.dirname, '..');
const repeats = Number(process.argv[2] ?? 6);
const height = Number(process.argv[3] ?? 1080);
if (height !== 1080 && height !== 720) throw new Error('size must be 1080 or 720');
const GOAL = 1.1;
/**
 * GET /jobs/{id} every second, every 100 ms once progress reaches 0.9, so the end is seen within
 * 100 ms. Not 100 ms throughout: one GET costs the coordinator ~6 ms of CPU (PGlite), and a 10 Hz
 * poller alone takes ~3% of a 2-core machine from ffmpeg, a load no real caller adds.
 */
const POLL_MS = { running: 1000, ending: 100, endingFrom: 0.9 };
const work = mkdtempSync(join(tmpdir(), 'cutroom-bench-cuts-'));
const agentWork = join(work, 'agent-work');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- the source: a few minutes of 16:9 video at 25 fps with speech, keyframes 10 s apart -------
const speech = join(work, 'speech.wav');
const source = join(work, 'source.mp4');
const width = (height * 16) / 9;
console.log(
  `preparing a ${width}x${height} 25 fps source (testsrc2 + LibriVox speech x${repeats}, keyframes every 10 s, a face still for the first half, then swaying)…`,
);
await concatWavs(
  librivoxUtterances().map((u) => u.file),
  speech,
  repeats,
);
const speechSeconds = Number((await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', speech])).stdout);
// A real face (face-api's sample photo) over the pattern: still in the first half (a talking head),
// swaying across the frame in the second (≈ 15 % of the width a second at its fastest: a walk).
const half = Math.floor(speechSeconds / 2);
const patch = await makePatch(work, height / 720);
const faceX = `if(lt(t,${half}),(W-w)/2,(W-w)/2+((W-w)/2-40)*sin((t-${half})*0.4))`;
await execa('ffmpeg', [
  ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=25`, '-i', speech, '-loop', '1', '-framerate', '25', '-i', patch],
  ...['-filter_complex', `[0:v][2:v]overlay=x='${faceX}':y=(H-h)/3:eval=frame:shortest=1,format=yuv420p[v]`, '-map', '[v]', '-map', '1:a', '-shortest'],
  ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '28', '-g', '250', '-keyint_min', '250', '-sc_threshold', '0'],
  ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2', source],
]);
const sourceSeconds = Number((await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', source])).stdout);
console.log(`source: ${sourceSeconds.toFixed(1)} s, ${(statSync(source).size / 1e6).toFixed(0)} MB; 1 render-agent on ${availableParallelism()} cores`);

// --- the recorder: what ran, when, and its CPU time -------------------------------------------
interface ToolRun {
  argv: string[];
  /** Epoch ms. */
  start: number;
  end: number;
  /** User + system seconds of the tool (bash `times`, children line). */
  cpu: number;
  isProbe: boolean;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const realTool = async (tool: string) => (await execa('bash', ['-c', `command -v ${tool}`])).stdout.trim();

/** Writes a recorder for `tool` that logs into `dir`; returns its path. */
async function writeRecorder(tool: 'ffmpeg' | 'ffprobe', dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const wrapper = join(dir, `${tool}.sh`);
  const body = [
    '#!/usr/bin/env bash',
    `rec=${quote(join(dir, tool))}-"\${EPOCHREALTIME/[.,]/}-$$"`,
    `printf '%s\\0' "$@" > "$rec.argv"`,
    'start=$EPOCHREALTIME',
    `${quote(await realTool(tool))} "$@"`,
    'rc=$?',
    'times > "$rec.cpu"',
    `printf '%s %s %s\\n' "$start" "$EPOCHREALTIME" "$rc" > "$rec.time"`,
    'exit "$rc"',
  ];
  writeFileSync(wrapper, `${body.join('\n')}\n`, { mode: 0o755 });
  return wrapper;
}

function readToolRuns(dir: string): ToolRun[] {
  const epochMs = (s: string) => Number(s.replace(',', '.')) * 1000;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.time'))
    .map((f) => {
      const base = join(dir, f.slice(0, -'.time'.length));
      const [start, end] = readFileSync(`${base}.time`, 'utf8').trim().split(' ');
      const times = [...readFileSync(`${base}.cpu`, 'utf8').matchAll(/(\d+)m([\d.,]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]!.replace(',', '.')));
      return {
        argv: readFileSync(`${base}.argv`, 'utf8').split('\0').slice(0, -1),
        start: epochMs(start!),
        end: epochMs(end!),
        cpu: (times[2] ?? 0) + (times[3] ?? 0),
        isProbe: f.startsWith('ffprobe'),
      };
    })
    .sort((a, b) => a.start - b.start);
}

const agentRuns = join(work, 'agent-tool-runs');
const agentFfmpeg = await writeRecorder('ffmpeg', agentRuns);
const agentFfprobe = await writeRecorder('ffprobe', agentRuns);

// --- CPU accounting (Linux /proc), to tell the service's own cost from other load -------------
const CLK_TCK = Number((await execa('getconf', ['CLK_TCK'])).stdout);
const procCpu = (pid: number | undefined): number => {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime
};
interface CpuSample {
  machine: number;
  agent: number;
  nats: number;
  /** This process: the coordinator (fastify, PGlite) and the bench's polling. */
  coordinator: number;
}
function sampleCpu(): CpuSample {
  const [, ...t] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const busy = t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!; // user nice system irq softirq steal
  const self = process.cpuUsage();
  return { machine: busy / CLK_TCK, agent: procCpu(agentPid), nats: procCpu(natsPid), coordinator: (self.user + self.system) / 1e6 };
}
const cpuDelta = (a: CpuSample, b: CpuSample): CpuSample => ({
  machine: b.machine - a.machine,
  agent: b.agent - a.agent,
  nats: b.nats - a.nats,
  coordinator: b.coordinator - a.coordinator,
});

// --- the service: nats-server, coordinator (PGlite, local blobs, billing off), one agent -------
const natsSeeds = newNatsAuthSeeds();
const nats = await startAuthenticatedNats({ storeDir: join(work, 'nats'), seeds: natsSeeds });
const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(' ').map(Number);
const natsPid = children.find((pid) => existsSync(`/proc/${pid}/comm`) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'nats-server');
const config = loadCoordinatorConfig({ PORT: String(await freePort()), DATA_DIR: join(work, 'data'), LOG_LEVEL: 'warn', NATS_URL: nats.url });
const secrets = { urlSigningSecret: 'bench-url-secret-0123456789' };
const coordinator = await startCoordinator(config, secrets, { natsUrl: nats.url, natsAuth: natsSeeds });
// As embedded/agent-children.ts starts one, but its JSON log goes to a file this script reads.
const agentLog = join(work, 'agent.log');
const agentAuth = await localAgentAuth(coordinator.ctx, { coordinatorUrl: coordinator.agentUrl, natsUrl: nats.url }, join(work, 'agents'), 'bench-agent');
const agent = execa(process.execPath, [join(root, 'render-agent/src/main.ts')], {
  env: {
    AGENT_ID: 'bench-agent',
    COORDINATOR_URL: coordinator.agentUrl,
    NATS_URL: nats.url,
    AGENT_CREDENTIAL_FILE: agentAuth.credentialFile,
    AGENT_ENROLLMENT_TOKEN: agentAuth.enrollmentToken ?? '',
    LOG_LEVEL: 'debug',
    FFMPEG_PATH: agentFfmpeg,
    FFPROBE_PATH: agentFfprobe,
    WORK_DIR: agentWork,
  },
  stdout: { file: agentLog },
  stderr: 'inherit',
  reject: false,
  cleanup: true,
});
const agentPid = agent.pid;

interface LogLine {
  time: number;
  msg: string;
  job_id?: string;
  [k: string]: unknown;
}
const readAgentLog = (): LogLine[] =>
  readFileSync(agentLog, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

let lastBar = '';
function bar(fraction: number, label: string): void {
  const w = 30;
  const n = Math.round(Math.min(1, Math.max(0, fraction)) * w);
  const line = `\r  [${'#'.repeat(n)}${'.'.repeat(w - n)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label.padEnd(12)}`;
  if (line !== lastBar) process.stdout.write(line);
  lastBar = line;
}

interface CutCase {
  label: string;
  id: string;
  service: { seconds: number; frames: number; runs: ToolRun[]; cpu: CpuSample };
  raw: { seconds: number; frames: number; runs: ToolRun[]; cpu: CpuSample };
  /** Epoch ms of POST /process and of the poll that saw `completed`. */
  from: number;
  to: number;
}

/** A reframing case: service seconds, and how many of the clip's samples the detector read. */
interface ReframeCase {
  label: string;
  seconds: number;
  reads: number;
  /** Of `reads`, those near known faces only (subjects v1 `detector.near_reads`). */
  nearReads: number;
  samples: number;
  /** Detection's wall time: the span of the sampling ffmpeg (it runs until the detector took its last frame). */
  detectSeconds: number;
  /** The encode's wall time (the libx264 pass): a panning crop costs the encoder more than a still one. */
  encodeSeconds: number;
  /** Points of the crop path rendered (1: a still window). */
  cropPoints: number;
}

/** Wall seconds of the recorded runs whose argv holds `marker` (first start to last end; 0 for none). */
function spanOf(runs: readonly ToolRun[], marker: string): number {
  const these = runs.filter((r) => !r.isProbe && r.argv.includes(marker));
  return these.length ? (Math.max(...these.map((r) => r.end)) - Math.min(...these.map((r) => r.start))) / 1000 : 0;
}

const api = apiClient(coordinator.url);
const cases: CutCase[] = [];
const reframeCases: ReframeCase[] = [];
try {
  for (let t = 0; !(existsSync(agentLog) && readAgentLog().some((l) => l.msg === 'pulling work')); t += 200) {
    if (t > 60_000) throw new Error(`the agent did not start pulling work within 60 s; see ${agentLog}`);
    await sleep(200);
  }
  const token = await api.newSession();
  const parentStarted = performance.now();
  const parentId = await api.submitTranscribe(token, source, 'source.mp4', 'video/mp4');
  const parent = await api.waitForJob(token, parentId, undefined, 15 * 60_000);
  if (parent.status !== 'completed') throw new Error(`the transcribe parent failed: ${parent.error_message}`);
  console.log(`parent transcribe (upload + transcribe; not part of the figures): ${((performance.now() - parentStarted) / 1000).toFixed(1)} s`);

  /** Creates the derivative (free), times POST /process → `completed`, then replays its ffmpeg commands raw. */
  async function runCase(label: string, body: Record<string, unknown>): Promise<CutCase> {
    const c = await serviceRun(label, body);
    return { ...c, raw: await replay(label, c.id, c.service.runs) };
  }

  /** The service side of a case: created free, timed from POST /process to `completed`, the clip and the job kept. */
  async function serviceRun(
    label: string,
    body: Record<string, unknown>,
  ): Promise<Omit<CutCase, 'raw'> & { job: { outputs: Array<{ role: string; download_url: string }> } }> {
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { source_job_id: parentId, ...body } });
    if (created.status !== 201) throw new Error(`POST /jobs ${label} → ${created.status} ${JSON.stringify(created.body)}`);
    const id = created.body.job_id as string;
    console.log(`service: ${label}: POST /jobs/{id}/process → poll until completed`);
    const cpu0 = sampleCpu();
    const from = Date.now();
    const t0 = performance.now();
    const processed = await api.call('POST', `/api/v1/jobs/${id}/process`, { token });
    if (processed.status !== 200) throw new Error(`POST /process ${label} → ${processed.status} ${JSON.stringify(processed.body)}`);
    let job = processed.body;
    for (const deadline = Date.now() + 20 * 60_000; !['completed', 'failed'].includes(job.status); ) {
      if (Date.now() > deadline) throw new Error(`${label} still ${job.status} after 20 min`);
      await sleep((job.progress?.fraction ?? 0) >= POLL_MS.endingFrom ? POLL_MS.ending : POLL_MS.running);
      job = (await api.call('GET', `/api/v1/jobs/${id}`, { token })).body;
      if (job.progress) bar(job.progress.fraction, job.progress.stage);
    }
    const seconds = (performance.now() - t0) / 1000;
    const to = Date.now();
    const cpu = cpuDelta(cpu0, sampleCpu());
    bar(1, job.status);
    process.stdout.write('\n');
    if (job.status !== 'completed') throw new Error(`${label} failed: ${job.error_message}`);
    const clip = join(work, `${id}.mp4`);
    const res = await fetch(job.outputs.find((o: { role: string }) => o.role === 'clip').download_url);
    writeFileSync(clip, Buffer.from(await res.arrayBuffer()));
    const runs = readToolRuns(agentRuns).filter((r) => r.start >= from && r.end <= to);
    const service = { seconds, frames: await frameCount(clip), runs, cpu };
    return { label, id, from, to, service, job };
  }

  /** A follow case: no raw side (detection is the service's own work); timed against the center case on the same window. */
  async function reframeCase(label: string, body: Record<string, unknown>): Promise<ReframeCase> {
    const c = await serviceRun(label, body);
    const subjects = (await (await fetch(c.job.outputs.find((o: { role: string }) => o.role === 'subjects')!.download_url)).json()) as SubjectsV1;
    return {
      label,
      seconds: c.service.seconds,
      reads: subjects.detector?.frames_sampled ?? 0,
      nearReads: subjects.detector?.near_reads ?? 0,
      samples: Math.round(60 / (subjects.detector?.sample_interval_s ?? 1)),
      detectSeconds: spanOf(c.service.runs, 'rawvideo'),
      encodeSeconds: spanOf(c.service.runs, 'libx264'),
      cropPoints: subjects.crop.path.length,
    };
  }

  // The still half's first minute, center then follow (what detection adds to a talking head), then
  // follow over a minute of the swaying half (the most it adds: every sample read).
  const still = Math.max(0, Math.min(5, half - 61));
  const moving = Math.max(0, Math.min(half + 5, Math.floor(sourceSeconds - 61)));
  const vertical = (start: number, subject: 'center' | 'follow') => ({
    job_type: 'extract_vertical_clip',
    start,
    end: start + 60,
    profile: 'vidA-primary',
    subject,
  });
  cases.push(await runCase('extract_vertical_clip 60 s', vertical(still, 'center')));
  reframeCases.push(await reframeCase('follow, a still face', vertical(still, 'follow')));
  reframeCases.push(await reframeCase('follow, a swaying face', vertical(moving, 'follow')));
  // 10 segments of 6 s spread over the source, off the 10 s keyframe grid.
  const step = (sourceSeconds - 6 - 4) / 9;
  const segments = Array.from({ length: 10 }, (_, i) => {
    const start = Math.round((1.37 + i * step) * 100) / 100;
    return { start, end: start + 6 };
  });
  cases.push(await runCase('extract_clip 10 x 6 s', { job_type: 'extract_clip', segments }));
} catch (err) {
  console.error(`\nbench failed; its files (agent.log, *-tool-runs/) stay in ${work}`);
  throw err;
} finally {
  agent.kill('SIGTERM');
  await Promise.race([agent, sleep(10_000)]);
  agent.kill('SIGKILL');
  await coordinator.stop();
  await nats.stop();
}

async function frameCount(file: string): Promise<number> {
  const r = await execa('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=nb_frames', '-of', 'csv=p=0', file]);
  return Number(r.stdout.trim());
}

/** The attempt's folder, from the source the agent's commands read (`file:<WORK_DIR>/<attempt>/source`). */
function attemptDirOf(runs: ToolRun[]): string {
  for (const r of runs) {
    const arg = r.argv.find((a) => a.startsWith(`file:${agentWork}/`) && a.endsWith('/source'));
    if (arg) return arg.slice('file:'.length, -'/source'.length);
  }
  throw new Error('no recorded command read the attempt source');
}
/** The agent's ffmpeg commands that read the job's source ("the command"). */
function onSourceOf(runs: ToolRun[]): ToolRun[] {
  const dir = attemptDirOf(runs);
  return runs.filter((r) => !r.isProbe && r.argv.includes(`file:${dir}/source`));
}

/**
 * Replays, in order, every ffmpeg command the agent ran on the job's source (loudness measures
 * and the encode), the source replaced by the bench's local copy, outputs in a temp folder.
 * Commands on the agent's own output (the loudness check) are not "the command"; the breakdown
 * shows them.
 */
async function replay(label: string, id: string, runs: ToolRun[]): Promise<CutCase['raw']> {
  const dir = attemptDirOf(runs);
  const rawDir = join(work, `raw-${id}`);
  const recorder = await writeRecorder('ffmpeg', join(rawDir, 'tool-runs'));
  const onSource = onSourceOf(runs);
  console.log(`raw: ${label}: the agent's ${onSource.length} ffmpeg command(s) on the same local file`);
  const cpu0 = sampleCpu();
  const t0 = performance.now();
  for (const r of onSource) {
    const argv = r.argv.map((a) => a.replaceAll(`${dir}/source`, source).replaceAll(`${dir}/`, `${rawDir}/`));
    const reads = argv.filter((a) => !a.startsWith('file:') && a.includes(rawDir));
    if (reads.length) throw new Error(`cannot replay: the command reads files the agent wrote (${reads.join(' ')}); use subject=center`);
    await execa(recorder, argv, { stdout: 'ignore' });
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuDelta(cpu0, sampleCpu());
  const out = join(rawDir, 'clip.mp4');
  return { seconds, frames: existsSync(out) ? await frameCount(out) : 0, runs: readToolRuns(join(rawDir, 'tool-runs')), cpu };
}

// --- report -----------------------------------------------------------------------------------
const log = readAgentLog();
const num = (v: number, n: number, d = 2) => v.toFixed(d).padStart(n);
const ratio = (c: CutCase) => c.service.seconds / c.raw.seconds;
const sum = (rs: ToolRun[], key: 'wall' | 'cpu' = 'wall') => rs.reduce((s, r) => s + (key === 'cpu' ? r.cpu : (r.end - r.start) / 1000), 0);
/** CPU seconds used by processes that are neither the service nor the tools it ran: other work on the machine. */
const otherCpu = (side: CutCase['service' | 'raw']) => side.cpu.machine - sum(side.runs, 'cpu') - side.cpu.agent - side.cpu.nats - side.cpu.coordinator;
const otherShare = (side: CutCase['service' | 'raw']) => otherCpu(side) / (side.seconds * availableParallelism());
console.log(`\n${'case'.padEnd(30)}${'service s'.padStart(11)}${'raw ffmpeg s'.padStart(14)}${'ratio'.padStart(8)}${'encode fps (service)'.padStart(22)}`);
for (const c of cases) {
  console.log(
    `${c.label.padEnd(30)}${num(c.service.seconds, 11)}${num(c.raw.seconds, 14)}${num(ratio(c), 8)}${num(c.service.frames / c.service.seconds, 22, 1)}`,
  );
}
/** Where one case's service seconds went: agent log milestones and the recorded tool runs. */
function breakdownOf(c: CutCase) {
  const runs = c.service.runs;
  const onSource = onSourceOf(runs);
  const checks = runs.filter((r) => !r.isProbe && !onSource.includes(r));
  const probes = runs.filter((r) => r.isProbe);
  const line = (msg: string) => log.find((l) => l.job_id === c.id && l.msg === msg);
  const at = (msg: string) => line(msg)?.time ?? Number.NaN;
  const lastTool = Math.max(...runs.map((r) => r.end));
  const parts: [string, number][] = [
    ['claim (POST /process → outbox relay → pull → claim)', (at('attempt claimed') - c.from) / 1000],
    ['source download (presigned URL)', (at('source downloaded') - at('attempt claimed')) / 1000],
    [`ffprobe x${probes.length}`, sum(probes)],
    [`ffmpeg on the source x${onSource.length} (raw: ${c.raw.seconds.toFixed(2)})`, sum(onSource)],
    [`ffmpeg on the output (loudness check) x${checks.length}`, sum(checks)],
    ['output upload + complete', (at('attempt completed') - lastTool) / 1000],
    ['poll (complete → a GET sees completed)', (c.to - at('attempt completed')) / 1000],
  ];
  parts.push(['agent glue between steps', c.service.seconds - parts.reduce((s, [, v]) => s + v, 0)]);
  const overheads: [string, number][] = [...parts.filter((_, i) => i !== 3), ['ffmpeg slower than raw', sum(onSource) - c.raw.seconds]];
  const loudness = line('loudness planned');
  const passes = loudness ? `${loudness['measures']} loudness measure(s, ${loudness['mode']}) + 1 encode` : 'the encode';
  const header = `${c.service.frames} frames (raw ${c.raw.frames}), ${onSource.length} ffmpeg pass(es) on the source: ${passes}, ${line('source probed')?.['encoder']}`;
  return { parts, header, onSource, biggest: overheads.reduce((a, b) => (b[1] > a[1] ? b : a)) };
}

/**
 * Detection's share (issue 27: detection adds at most 30 % to the clip's time): the follow clip's
 * detection (the sampling pass) against the center clip of the same profile and length. The
 * whole follow clip is printed too: it also pays an encode of a moving crop, which costs x264
 * more than a still one (the picture pans), whatever found the face.
 */
const REFRAME_GOAL = 0.3;
const center = cases[0]!;
const centerEncode = spanOf(center.service.runs, 'libx264');
console.log(
  `\nreframing: follow against center (${center.service.seconds.toFixed(2)} s, its encode ${centerEncode.toFixed(2)} s), the same 60 s 1080p → 1080x1920 clip:`,
);
for (const r of reframeCases) {
  const extra = r.seconds / center.service.seconds - 1;
  const detect = r.detectSeconds / center.service.seconds;
  const reads = `${r.reads} of ${r.samples} samples read${r.nearReads ? `, ${r.nearReads} of them near the face only` : ''}`;
  console.log(
    `  ${r.label.padEnd(28)}${num(r.seconds, 8)} s  +${(extra * 100).toFixed(0)} % in all: detection ${r.detectSeconds.toFixed(2)} s = +${(detect * 100).toFixed(0)} % ` +
      `(${reads}; ${detect <= REFRAME_GOAL ? 'within' : 'over'} the +${REFRAME_GOAL * 100} % goal), encode ${r.encodeSeconds.toFixed(2)} s (${r.cropPoints} crop path points)`,
  );
}

const missed = cases.filter((c) => ratio(c) > GOAL);
const why = (c: CutCase) => {
  const [name, v] = breakdownOf(c).biggest;
  return `${c.label} (${ratio(c).toFixed(2)}; largest overhead: ${name.replace(/ \(.*/, '')} ${v.toFixed(2)} s)`;
};
console.log(
  missed.length === 0
    ? `verdict: service / raw <= ${GOAL.toFixed(2)} in every case: goal met`
    : `verdict: goal service / raw <= ${GOAL.toFixed(2)} missed by ${missed.map(why).join(', ')}`,
);
for (const c of cases.filter((c) => Math.max(otherShare(c.service), otherShare(c.raw)) > 0.05)) {
  const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
  console.log(
    `  caution: ${c.label}: other processes took ${pct(otherShare(c.service))} of the CPU during the service run, ${pct(otherShare(c.raw))} during raw; not a quiet machine`,
  );
}

console.log('\nwhere the service time goes (agent log + recorded tool runs), seconds:');
for (const c of cases) {
  const { parts, header, onSource } = breakdownOf(c);
  console.log(`  ${c.label}: ${header}`);
  for (const [name, v] of parts) console.log(`    ${name.padEnd(60)}${num(v, 8)}`);
  const s = c.service.cpu;
  console.log(
    `    CPU s: ffmpeg on the source ${sum(onSource, 'cpu').toFixed(1)} (raw ${sum(c.raw.runs, 'cpu').toFixed(1)}), all tools ${sum(c.service.runs, 'cpu').toFixed(1)}, ` +
      `agent ${s.agent.toFixed(1)}, coordinator+bench ${s.coordinator.toFixed(1)}, nats ${s.nats.toFixed(1)}, ` +
      `other processes ${otherCpu(c.service).toFixed(1)} (raw: ${otherCpu(c.raw).toFixed(1)}), of ${(c.service.seconds * availableParallelism()).toFixed(0)} available`,
  );
}
rmSync(work, { recursive: true, force: true });
