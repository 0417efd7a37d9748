import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOUDNESS_TARGET, VERTICAL_PROFILES, type VerticalProfile } from '@cutroom/shared/clips/profiles';
import { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { type LoudnessPlan, measureEbur128, measureLoudness, planLoudness } from '@cutroom/render-agent/executors/loudness';
import { probeVideo, type VideoStreamInfo } from '@cutroom/render-agent/executors/video-probe';
import { renderVerticalClip } from '@cutroom/render-agent/executors/vertical-render';
import { BORDER_PX, type LoudnessSources, makeLoudnessSources } from './harness/media-gen/loudness-sources.ts';

// Real ffmpeg, no coordinator: the render-agent's half of extract_vertical_clip (loudness planning
// and the one-pass render) on generated sources. The crop is a static center crop built here, not
// the reframe module's, so this suite checks the render alone.
const FFMPEG = 'ffmpeg';
const FFPROBE = 'ffprobe';
const never = new AbortController().signal;

let dir: string;
let src: LoudnessSources;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vertical-render-'));
  src = await makeLoudnessSources(dir, 5);
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** subjects v1 for `center`: a full-height 9:16 window in the middle, or the whole picture for a vertical source. */
function centerSubjects(video: VideoStreamInfo, start: number, end: number): SubjectsV1 {
  const isVertical = video.width / video.height <= 9 / 16 + 1e-6;
  const width = isVertical ? video.width : Math.round((video.height * 9) / 16 / 2) * 2;
  const height = video.height;
  return SubjectsV1.parse({
    version: 1,
    strategy: 'center',
    source: { width: video.width, height: video.height, fps: video.fps },
    clip: { start, end },
    detector: null,
    shots: [],
    subjects: [],
    chosen_subject_id: null,
    crop: { width, height, scaled_only: isVertical, path: [{ t: 0, x: Math.floor((video.width - width) / 2), y: 0 }] },
  });
}

const staticCrop = (doc: SubjectsV1) => (doc.crop.scaled_only ? '' : `crop=${doc.crop.width}:${doc.crop.height}:${doc.crop.path[0]!.x}:${doc.crop.path[0]!.y}`);

interface Rendered {
  file: string;
  plan: LoudnessPlan;
  loudness: { integratedLufs: number; truePeakDbtp: number };
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; sample_aspect_ratio?: string; bit_rate?: string }[];
  durationSeconds: number;
}

async function render(source: string, profile: VerticalProfile, start: number, end: number): Promise<Rendered> {
  const p = VERTICAL_PROFILES[profile];
  const video = await probeVideo(FFPROBE, source, never);
  const doc = centerSubjects(video, start, end);
  const range = { input: source, start, duration: end - start };
  const plan = await planLoudness((preFilter) => measureLoudness({ ffmpegPath: FFMPEG, ...range, preFilter, signal: never }));
  const file = path.join(dir, `${path.basename(source, '.mp4')}-${profile}.mp4`);
  const progress: number[] = [];
  await renderVerticalClip({
    ffmpegPath: FFMPEG,
    ...range,
    output: file,
    cropFilter: staticCrop(doc),
    width: p.width,
    height: p.height,
    audioFilter: plan.filter,
    encoder: 'libx264',
    settings: { preset: p.preset, rate: p.rate },
    signal: never,
    onProgress: (f) => progress.push(f),
  });
  expect(progress.at(-1)).toBe(1);
  const probe = JSON.parse(String((await execa(FFPROBE, ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file])).stdout));
  return {
    file,
    plan,
    loudness: await measureEbur128(FFMPEG, file, never),
    streams: probe.streams,
    durationSeconds: Number(probe.format.duration),
  };
}

/** One pixel of the frame at `t` seconds, as RGB. */
async function pixelAt(file: string, t: number, x: number, y: number): Promise<[number, number, number]> {
  const r = await execa(
    FFMPEG,
    ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-vf', `crop=1:1:${x}:${y},format=rgb24`, '-f', 'rawvideo', '-'],
    { encoding: 'buffer' },
  );
  const b = r.stdout as Uint8Array;
  return [b[0]!, b[1]!, b[2]!];
}

function expectDelivered(r: Rendered, profile: VerticalProfile, seconds: number) {
  const p = VERTICAL_PROFILES[profile];
  const v = r.streams.find((s) => s.codec_type === 'video');
  const a = r.streams.find((s) => s.codec_type === 'audio');
  expect(v).toMatchObject({ codec_name: 'h264', width: p.width, height: p.height, sample_aspect_ratio: '1:1' });
  expect(a).toMatchObject({ codec_name: 'aac' });
  expect(Math.abs(r.durationSeconds - seconds)).toBeLessThanOrEqual(0.1);
  // ±0.5 LU of the target; true peak at most the ceiling (+0.1 dB: ebur128 reports to 0.1).
  expect(Math.abs(r.loudness.integratedLufs - LOUDNESS_TARGET.integratedLufs)).toBeLessThanOrEqual(0.5);
  expect(r.loudness.truePeakDbtp).toBeLessThanOrEqual(LOUDNESS_TARGET.truePeakDbtp + 0.1);
  if (p.rate.mode === 'cbr') {
    // Loose: x264's CBR fills to the rate with filler NALs; a short clip of a test pattern may sit a little off.
    const kbps = Number(v!.bit_rate) / 1000;
    expect(kbps).toBeGreaterThan(p.rate.kbps * 0.6);
    expect(kbps).toBeLessThan(p.rate.kbps * 1.3);
  }
}

describe('vertical render (real ffmpeg)', () => {
  it('quiet 16:9 source → vidA-primary-720p: 720x1280 CBR, raised to -14 LUFS without passing -1.5 dBTP', async () => {
    const r = await render(src.quiet, 'vidA-primary-720p', 1, 4);
    expect(r.plan.inputIntegratedLufs).toBeLessThan(-30);
    expectDelivered(r, 'vidA-primary-720p', 3);
  });

  it('loud 16:9 source → vidA-primary: 1080x1920 CRF, brought down to -14 LUFS', async () => {
    const r = await render(src.loud, 'vidA-primary', 1, 4);
    expect(r.plan.inputIntegratedLufs).toBeGreaterThan(-9);
    expectDelivered(r, 'vidA-primary', 3);
  });

  it('quiet source → vidB-reels and loud source → vidB-stories: slow preset, CBR 4 Mbps', async () => {
    const reels = await render(src.quiet, 'vidB-reels', 0.5, 2.5);
    expectDelivered(reels, 'vidB-reels', 2);
    const stories = await render(src.loud, 'vidB-stories', 2, 4);
    expectDelivered(stories, 'vidB-stories', 2);
  });

  it('a vertical source is scaled, not cropped: both border columns survive at 720x1280', async () => {
    const r = await render(src.vertical, 'vidA-primary-720p', 0.5, 3.5);
    expectDelivered(r, 'vidA-primary-720p', 3);
    const edge = Math.floor((BORDER_PX * 720) / 1080 / 2);
    const [lr, lg, lb] = await pixelAt(r.file, 1, edge, 640);
    const [rr, rg, rb] = await pixelAt(r.file, 1, 719 - edge, 640);
    const [mr, mg, mb] = await pixelAt(r.file, 1, 360, 640);
    expect(lr).toBeGreaterThan(180);
    expect(Math.max(lg, lb)).toBeLessThan(80);
    expect(rb).toBeGreaterThan(180);
    expect(Math.max(rr, rg)).toBeLessThan(80);
    expect(Math.abs(mr - mg) + Math.abs(mg - mb)).toBeLessThan(30);
  });
});
