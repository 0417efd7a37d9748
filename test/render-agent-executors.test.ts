import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { loadAgentConfig } from '@cutroom/render-agent/config';
import { PipelineError } from '@cutroom/render-agent/errors';
import { extractAudio } from '@cutroom/render-agent/executors/ffmpeg';
import { assertTranscribable, probeMedia } from '@cutroom/render-agent/executors/probe';
import { buildWhisperArgs, transcribeWithWhisper, type WhisperOptions } from '@cutroom/render-agent/executors/whisper';
import { pythonEnv } from '@cutroom/render-agent/python-scripts';

// Real media, real ffmpeg, real faster-whisper (tiny.en from the offline package) on the CPU.
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const utterance = (n: string) => path.join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${n}.wav`);
const config = loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:1', AGENT_TOKEN: 'x', NATS_URL: 'nats://127.0.0.1:1' });

let dir: string;
let video: string; // testsrc + all five utterances, AAC in MP4
let silentVideo: string;
let longAudio: string; // the five utterances ten times over, for cancellation
let corrupt: string;

function whisperOptions(audioPath: string, signal: AbortSignal, extra: Partial<WhisperOptions> = {}): WhisperOptions {
  return {
    python: config.python,
    audioPath,
    model: config.whisper.model,
    device: 'cpu',
    computeType: 'int8',
    beamSize: config.whisper.beamSize,
    cpuThreads: config.whisper.cpuThreads,
    language: null,
    allowDownload: false,
    signal,
    ...extra,
  };
}

async function pipeline(input: string) {
  const media = await probeMedia(config.ffprobePath, input);
  assertTranscribable(media);
  const wav = path.join(dir, `${path.basename(input)}.wav`);
  const extractFractions: number[] = [];
  const signal = new AbortController().signal;
  await extractAudio({
    ffmpegPath: config.ffmpegPath,
    input,
    output: wav,
    durationSeconds: media.duration_seconds,
    signal,
    onProgress: (f) => extractFractions.push(f),
  });
  const whisperFractions: number[] = [];
  const transcript = await transcribeWithWhisper(whisperOptions(wav, signal, { onProgress: (f) => whisperFractions.push(f) }));
  return {
    media,
    transcript,
    extractFractions,
    whisperFractions,
    text: transcript.segments
      .map((s) => s.text)
      .join(' ')
      .toLowerCase(),
  };
}

function expectRisingToOne(fractions: number[]) {
  expect(fractions.length).toBeGreaterThan(0);
  for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]!);
  expect(fractions.at(-1)).toBeGreaterThan(0.95);
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'render-agent-exec-'));
  const all = ['0870', '0880', '0890', '0920', '0930'].map(utterance);
  const concatInputs = all.flatMap((f) => ['-i', f]);
  // Input 0 is the lavfi picture; the utterances are inputs 1..5.
  const concat = `${all.map((_, i) => `[${i + 1}:a]`).join('')}concat=n=${all.length}:v=0:a=1[a]`;
  video = path.join(dir, 'talk with spaces.mp4');
  await execa('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=25',
    ...concatInputs,
    '-filter_complex',
    concat,
    '-map',
    '0:v',
    '-map',
    '[a]',
    '-shortest',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    video,
  ]);
  silentVideo = path.join(dir, 'silent.mp4');
  await execa('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x120:rate=10:duration=1',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    silentVideo,
  ]);
  longAudio = path.join(dir, 'long.wav');
  await execa('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '9', '-i', video, '-vn', '-ac', '1', '-ar', '16000', longAudio]);
  corrupt = path.join(dir, 'corrupt.mp4');
  // The same 64 KB of noise every run: fresh random bytes now and then look enough like a format
  // ffprobe knows (one outside the accepted list) to be refused as that format instead.
  await fs.writeFile(corrupt, noiseBytes('corrupt.mp4', 64 * 1024));
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('render-agent executors on real media', () => {
  it('transcribes a LibriVox WAV with word timestamps', async () => {
    const r = await pipeline(utterance('0870'));
    expect(r.media).toMatchObject({ has_audio: true, has_video: false, format_name: 'wav' });
    expect(r.media.duration_seconds).toBeCloseTo(7.1, 1);
    expect(() => TranscriptV2.parse(r.transcript)).not.toThrow();
    expect(r.transcript.language).toBe('en');
    expect(r.text).toContain('john dashwood');
    expect(r.text).toContain('prudently');
    const words = r.transcript.segments.flatMap((s) => s.words);
    const dashwood = words.find((w) => w.word.toLowerCase().startsWith('dashwood'));
    expect(dashwood).toBeDefined();
    expect(dashwood!.start).toBeGreaterThan(0.5);
    expect(dashwood!.end).toBeLessThan(3);
    expect(words.every((w) => w.word === w.word.trim())).toBe(true);
    expectRisingToOne(r.extractFractions);
    expectRisingToOne(r.whisperFractions);
  });

  it('transcribes the audio of an MP4 video whose name has spaces', async () => {
    const r = await pipeline(video);
    expect(r.media).toMatchObject({ has_audio: true, has_video: true });
    expect(r.media.format_name).toContain('mp4');
    expect(r.media.duration_seconds).toBeGreaterThan(20);
    expect(r.text).toContain('john dashwood');
    expect(r.text).toContain('prudently');
    expect(r.text).toMatch(/amiable/);
    expect(r.whisperFractions.length).toBeGreaterThan(2);
    expectRisingToOne(r.whisperFractions);
    expectRisingToOne(r.extractFractions);
  });

  it('classifies random bytes named .mp4 as media_invalid, in the probe and in the Whisper child', async () => {
    const probeErr = await probeMedia(config.ffprobePath, corrupt).catch((e: unknown) => e);
    expect(probeErr).toBeInstanceOf(PipelineError);
    expect(probeErr).toMatchObject({ code: 'media_invalid' });
    expect((probeErr as Error).message).toMatch(/not audio or video that ffprobe can read/);
    const childErr = await transcribeWithWhisper(whisperOptions(corrupt, new AbortController().signal)).catch((e: unknown) => e);
    expect(childErr).toMatchObject({ code: 'media_invalid' });
  });

  it('classifies a video without sound as media_no_audio', async () => {
    const media = await probeMedia(config.ffprobePath, silentVideo);
    expect(() => assertTranscribable(media)).toThrow(expect.objectContaining({ code: 'media_no_audio' }));
  });

  it('a missing model fails fast as tool_failed, offline', async () => {
    const started = Date.now();
    const err = await transcribeWithWhisper(whisperOptions(utterance('0880'), new AbortController().signal, { model: 'large-v3' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'tool_failed' });
    expect((err as Error).message).toMatch(/large-v3/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('the Whisper child skips the VAD over digital silence, and not over a quiet tone', async () => {
    // Same transcript either way (no segment); what differs is the pass the child skips, which its log says.
    const child = async (lavfi: string, name: string) => {
      const wav = path.join(dir, name);
      await execa('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', lavfi, '-t', '20', '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', wav]);
      const args = buildWhisperArgs({
        audioPath: wav,
        model: config.whisper.model,
        device: 'cpu',
        computeType: 'int8',
        beamSize: 5,
        cpuThreads: 1,
        language: null,
      });
      const r = await execa(config.python, args, { env: pythonEnv(false) });
      const lines = r.stdout.split('\n').map((l) => JSON.parse(l) as { type: string; duration?: number });
      return { lines, skipped: /digital silence/.test(r.stderr) };
    };
    const silent = await child('anullsrc=r=16000:cl=mono', 'zeros.wav');
    expect(silent.skipped).toBe(true);
    expect(silent.lines.map((l) => l.type)).toEqual(['info', 'progress', 'done']);
    expect(silent.lines[0]!.duration).toBeCloseTo(20, 1);
    // A tone at -60 dBFS: quiet, but far above one 16-bit step, so the VAD looks (and finds no speech).
    const quiet = await child('sine=frequency=440:sample_rate=16000,volume=0.001', 'quiet.wav');
    expect(quiet.skipped).toBe(false);
    expect(quiet.lines.filter((l) => l.type === 'segment')).toEqual([]);
    expect(quiet.lines.at(-1)!.type).toBe('done');
  });

  it('abort kills the Whisper child promptly', async () => {
    const ac = new AbortController();
    let pid = 0;
    let firstProgress: () => void = () => undefined;
    const progressed = new Promise<void>((r) => (firstProgress = r));
    const run = transcribeWithWhisper(whisperOptions(longAudio, ac.signal, { onSpawn: (p) => (pid = p), onProgress: () => firstProgress() }));
    run.catch(() => undefined);
    await progressed; // mid-run: the model is loaded and decoding
    const abortedAt = Date.now();
    ac.abort(new Error('cancelled by test'));
    await expect(run).rejects.toThrow('cancelled by test');
    expect(Date.now() - abortedAt).toBeLessThan(3_000);
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});

/** `bytes` of deterministic noise: SHA-256 in counter mode over `seed`. */
function noiseBytes(seed: string, bytes: number): Buffer {
  const blocks = Array.from({ length: Math.ceil(bytes / 32) }, (_, i) => createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, bytes);
}
