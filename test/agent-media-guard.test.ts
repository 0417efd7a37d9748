import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TranscribeAssignment } from '@cutroom/proto';
import { systemClock } from '@cutroom/render-agent/clock';
import { loadAgentConfig } from '@cutroom/render-agent/config';
import { PipelineError } from '@cutroom/render-agent/errors';
import { createLogger } from '@cutroom/render-agent/logger';
import { extractAudio } from '@cutroom/render-agent/executors/ffmpeg';
import { INPUT_GUARD_ARGS, PROTOCOL_REFUSED } from '@cutroom/render-agent/executors/media-path';
import { probeMedia } from '@cutroom/render-agent/executors/probe';
import { transcribeWithWhisper } from '@cutroom/render-agent/executors/whisper';
import type { PipelineContext } from '@cutroom/render-agent/pipelines/pipeline';
import { transcribePipeline } from '@cutroom/render-agent/pipelines/transcribe';
import { librivoxUtterances } from './harness/media.ts';

/**
 * Issue 7 on the agent, with the real ffprobe, ffmpeg and Whisper child: failure messages (shown
 * to the caller when the input is to blame) never carry a work-folder path or a file: URL, and
 * only local files in the accepted upload formats are read: a playlist or a concat script that
 * would make ffmpeg read other files is refused as media_invalid.
 */
let dir: string; // the test's files
let workDir: string; // the agent's WORK_DIR, with a space in it like a real one might have
let corrupt: string;
let speech: string;
let hlsPlaylist: string;
let concatScript: string;
let server: http.Server;
let baseUrl: string;
const served = new Map<string, Buffer>();

const config = () =>
  loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:1', AGENT_TOKEN: 'x', NATS_URL: 'nats://127.0.0.1:1', AGENT_ID: 'guard-agent', WORK_DIR: workDir });

/** Every local path a message must not reveal. */
function expectNoLocalPath(message: string) {
  expect(message).not.toContain(dir);
  expect(message).not.toContain(workDir);
  expect(message).not.toContain(os.tmpdir());
  expect(message).not.toMatch(/file:/);
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cutroom-guard-'));
  workDir = path.join(dir, 'agent work');
  corrupt = path.join(dir, 'corrupt.mp4');
  // Deterministic bytes: random ones now and then probe as some demuxer (a flaky "not in an
  // accepted format" instead of "Invalid data"); this pattern matches none and fails the same way every run.
  await fs.writeFile(corrupt, Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919 + 13) % 251)));
  speech = librivoxUtterances()[0]!.file;
  // A playlist whose one segment is a local file: ffprobe and ffmpeg would read that file through
  // the hls demuxer (the file protocol is allowed inside it by default) and transcribe it.
  hlsPlaylist = path.join(dir, 'playlist.m3u8');
  await fs.writeFile(hlsPlaylist, `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${speech}\n#EXT-X-ENDLIST\n`);
  // ffconcat reads files named relative to itself.
  await fs.copyFile(speech, path.join(dir, 'other.wav'));
  concatScript = path.join(dir, 'list.txt');
  await fs.writeFile(concatScript, 'ffconcat version 1.0\nfile other.wav\n');

  server = http.createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.byteLength }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((ok) => server?.close(() => ok()));
  await fs.rm(dir, { recursive: true, force: true });
});

describe('caller-facing failure messages carry no local path (real tools)', () => {
  it('ffprobe on a corrupt file', async () => {
    const err = await probeMedia('ffprobe', corrupt).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'media_invalid' });
    expect((err as Error).message).toMatch(/not audio or video that ffprobe can read \(source: Invalid data found/);
    expectNoLocalPath((err as Error).message);
  });

  it('ffmpeg on a corrupt file (its error line names the input by URL)', async () => {
    const err = await extractAudio({
      ffmpegPath: 'ffmpeg',
      input: corrupt,
      output: path.join(dir, 'out.wav'),
      durationSeconds: 1,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'media_invalid' });
    expect((err as Error).message).toBe('the audio in the uploaded file could not be decoded (source: Invalid data found when processing input)');
  });

  it('ffmpeg that cannot write its output: ours (tool_failed), still without the path', async () => {
    const output = path.join(dir, 'a folder.wav');
    await fs.mkdir(output);
    const err = await extractAudio({ ffmpegPath: 'ffmpeg', input: speech, output, durationSeconds: 7, signal: new AbortController().signal }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'tool_failed' });
    expect((err as Error).message).toMatch(/audio\.wav: Is a directory/);
    expectNoLocalPath((err as Error).message);
  });

  it('the Whisper child on a corrupt file', async () => {
    const c = config();
    const err = await transcribeWithWhisper({
      python: c.python,
      audioPath: corrupt,
      model: c.whisper.model,
      device: 'cpu',
      computeType: 'int8',
      beamSize: 1,
      language: null,
      allowDownload: false,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'media_invalid' });
    expect((err as Error).message).toMatch(/could not decode audio corrupt\.mp4/);
    expectNoLocalPath((err as Error).message);
  });
});

describe('only local files in the accepted formats are read (real tools)', () => {
  it('refuses an HLS playlist and an ffconcat script that point at other local files', async () => {
    for (const input of [hlsPlaylist, concatScript]) {
      const err = await probeMedia('ffprobe', input).catch((e: unknown) => e);
      expect(err, input).toBeInstanceOf(PipelineError);
      expect(err).toMatchObject({ code: 'media_invalid', message: expect.stringMatching(/is not in an accepted format; upload MP3, WAV, .*AVI$/) });
      expectNoLocalPath((err as Error).message);
      // ffmpeg is guarded the same way, in case it is ever reached without the probe.
      const out = path.join(dir, 'from-playlist.wav');
      const extracted = await extractAudio({ ffmpegPath: 'ffmpeg', input, output: out, durationSeconds: 7, signal: new AbortController().signal }).catch(
        (e: unknown) => e,
      );
      expect(extracted).toMatchObject({ code: 'media_invalid', message: expect.stringMatching(/not in an accepted format/) });
      await expect(fs.stat(out)).rejects.toThrow(/ENOENT/);
    }
  });

  it('lets no protocol but file through the input guard', async () => {
    const other = path.join(dir, 'other.wav');
    for (const url of [`concat:${other}|${other}`, `subfile,,start,0,end,0,,:${other}`, 'http://127.0.0.1:1/x.wav', `pipe:0`]) {
      const r = await execa('ffprobe', ['-v', 'error', ...INPUT_GUARD_ARGS, '-show_format', url], { reject: false, input: '' });
      expect(r.exitCode, url).not.toBe(0);
      expect(String(r.stderr), url).toMatch(PROTOCOL_REFUSED);
    }
    const ok = await execa('ffprobe', ['-v', 'error', ...INPUT_GUARD_ARGS, '-show_format', `file:${other}`], { reject: false });
    expect(ok.exitCode).toBe(0);
  });

  it('reads every accepted upload format, audio and video', async () => {
    const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'];
    const picture = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=1'];
    const samples: [string, string[]][] = [
      ['tone.mp3', [...tone, '-c:a', 'libmp3lame']],
      ['tone.wav', [...tone, '-c:a', 'pcm_s16le']],
      ['tone.m4a', [...tone, '-c:a', 'aac']],
      ['tone.ogg', [...tone, '-c:a', 'libvorbis']],
      ['tone.opus', [...tone, '-c:a', 'libopus']],
      ['tone.flac', [...tone, '-c:a', 'flac']],
      ['tone.weba', [...tone, '-c:a', 'libopus', '-f', 'webm']],
      ['tone.aac', [...tone, '-c:a', 'aac', '-f', 'adts']],
      ['clip.mp4', [...picture, ...tone, '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac']],
      ['clip.mov', [...picture, ...tone, '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac']],
      ['clip.webm', [...picture, ...tone, '-c:v', 'libvpx', '-c:a', 'libopus']],
      ['clip.mkv', [...picture, ...tone, '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'libopus']],
      ['clip.avi', [...picture, ...tone, '-c:v', 'mpeg4', '-c:a', 'libmp3lame']],
    ];
    for (const [name, args] of samples) {
      const file = path.join(dir, name);
      await execa('ffmpeg', ['-v', 'error', '-y', ...args, file]);
      const media = await probeMedia('ffprobe', file);
      expect(media.has_audio, name).toBe(true);
      await extractAudio({
        ffmpegPath: 'ffmpeg',
        input: file,
        output: `${file}.wav`,
        durationSeconds: media.duration_seconds,
        signal: new AbortController().signal,
      });
      expect((await fs.stat(`${file}.wav`)).size, name).toBeGreaterThan(16_000);
    }
  });
});

describe('through the transcribe pipeline (real tools, WORK_DIR/<attempt>)', () => {
  async function runPipeline(name: string, body: Buffer) {
    served.set(`/${name}`, body);
    const attempt = `0190a5a0-0000-7000-8000-${String(served.size).padStart(12, '0')}`;
    const a: TranscribeAssignment = {
      v: 1,
      job_type: 'transcribe',
      kind: 'transcribe',
      job_id: '0190a5a0-0000-7000-8000-00000000aaaa',
      attempt_id: attempt,
      lease_ms: 30_000,
      outputs: {},
      source: { get_url: `${baseUrl}/${name}`, content_type: 'video/mp4', size: body.byteLength },
      params: { language: null, model: 'tiny.en' },
    };
    const client = { stage: vi.fn(), heartbeat: vi.fn(), complete: vi.fn(), fail: vi.fn().mockResolvedValue(undefined) };
    const ctx: PipelineContext = {
      config: config(),
      whisper: { device: 'cpu', computeType: 'int8' },
      host: {
        ffmpeg: { version: '5.1', encoders: ['aac', 'libx264'] },
        nvenc: false,
        cuda: { available: false, devices: [] },
        whisperModels: { isRunnable: true, models: ['tiny.en'] },
        freeDiskBytes: 1e10,
      },
      client,
      fence: { v: 1, job_id: a.job_id, attempt_id: a.attempt_id, agent_id: 'guard-agent' },
      progress: { report: vi.fn(), flush: vi.fn(), close: vi.fn() },
      logger: createLogger('silent', 'guard-agent'),
      clock: systemClock,
    };
    const outcome = await transcribePipeline.run(a, new AbortController().signal, ctx);
    expect(outcome).toBe('failed');
    expect(client.complete).not.toHaveBeenCalled();
    // Nothing reached the Whisper stage.
    expect(client.stage).not.toHaveBeenCalled();
    await expect(fs.stat(path.join(workDir, attempt))).rejects.toThrow(/ENOENT/);
    return client.fail.mock.calls[0]![0] as { code: string; message: string };
  }

  it('fails a corrupt upload as media_invalid with a message that names no path', async () => {
    const report = await runPipeline('corrupt', await fs.readFile(corrupt));
    expect(report.code).toBe('media_invalid');
    expect(report.message).toMatch(/not audio or video that ffprobe can read \(source: Invalid data/);
    expectNoLocalPath(report.message);
  });

  it('refuses an uploaded playlist and an uploaded concat script instead of reading the files they name', async () => {
    for (const [name, file] of [
      ['playlist', hlsPlaylist],
      ['concat', concatScript],
    ] as const) {
      const report = await runPipeline(name, await fs.readFile(file));
      expect(report.code, name).toBe('media_invalid');
      expect(report.message).toMatch(/not in an accepted format/);
      expectNoLocalPath(report.message);
    }
  });
});
