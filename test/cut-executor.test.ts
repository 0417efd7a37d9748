import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOIN_FADE_SECONDS } from '@cutroom/shared/clips/profiles';
import { retimeTranscript } from '@cutroom/shared/transcript/retime';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { cutClip, type SnappedSegment, snapSegments } from '@cutroom/render-agent/executors/cut';
import { probeVideo, type VideoStreamInfo } from '@cutroom/render-agent/executors/video-probe';
import {
  audioSamples,
  MARKER_PERIOD,
  MARKER_SECONDS,
  makeFrameCounterVideo,
  markerOnsets,
  readFrameNumbers,
  SAMPLE_RATE,
  TONE_AMPLITUDE,
  TONE_HZ,
} from './harness/media-gen/frame-counter.ts';
import { probeStreams, streamOf } from './harness/probe.ts';

// The cut executor on real ffmpeg, checked by decoding what it wrote: every frame carries its
// source index (frame-counter.ts), the left channel is a continuous tone, the right one has a
// time marker every half second. Sources have keyframes only every 250 frames, so a cut that
// started on a keyframe would show the wrong frames. No stack: ffmpeg only.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutroom-cut-executor-'));
const ntsc = path.join(dir, 'ntsc.mp4'); // 320x240 at 30000/1001, 12 s: keyframes at frames 0 and 250
const hd = path.join(dir, 'hd.mp4'); // 1920x1080 at 25, 4 s: one keyframe
const silent = path.join(dir, 'silent.mp4'); // ntsc without its audio

beforeAll(async () => {
  await Promise.all([
    makeFrameCounterVideo(ntsc, { seconds: 12, fps: '30000/1001', width: 320, height: 240, gop: 250 }),
    makeFrameCounterVideo(hd, { seconds: 4, fps: '25', width: 1920, height: 1080, gop: 250 }),
  ]);
  await execa('ffmpeg', ['-v', 'error', '-y', '-i', ntsc, '-map', '0:v', '-c', 'copy', silent]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Cut {
  file: string;
  source: VideoStreamInfo;
  segments: SnappedSegment[];
  progress: number[];
  ms: number;
}

async function cut(input: string, name: string, ranges: { start: number; end: number }[]): Promise<Cut> {
  const source = await probeVideo('ffprobe', input);
  const segments = snapSegments(ranges, source.fps, source.durationSeconds);
  const file = path.join(dir, `cut-${name}`);
  const progress: number[] = [];
  const started = Date.now();
  await cutClip({
    ffmpegPath: 'ffmpeg',
    input,
    output: file,
    segments,
    fps: source.fps,
    fpsRational: source.fpsRational,
    hasAudio: source.hasAudio,
    encoder: 'libx264',
    signal: new AbortController().signal,
    onProgress: (f) => progress.push(f),
  });
  return { file, source, segments, progress, ms: Date.now() - started };
}

/** The source frame indices a cut must show, in order. */
const expectedFrames = (segments: SnappedSegment[]) => segments.flatMap((s) => Array.from({ length: s.frames }, (_, k) => s.startFrame + k));

/** Output seconds where each segment starts (and, last, where the clip ends). */
function segmentStarts(segments: SnappedSegment[], fps: number): number[] {
  const starts = [0];
  for (const s of segments) starts.push(starts.at(-1)! + s.frames / fps);
  return starts;
}

async function expectExactVideo(c: Cut, size: { width: number; height: number }) {
  const frames = await readFrameNumbers(c.file);
  const expected = expectedFrames(c.segments);
  // Segment by segment first: a failure then names the boundary that moved.
  let at = 0;
  for (const s of c.segments) {
    expect({ first: frames[at], last: frames[at + s.frames - 1] }).toEqual({ first: s.startFrame, last: s.startFrame + s.frames - 1 });
    at += s.frames;
  }
  expect(frames).toEqual(expected);
  const probed = await probeStreams(c.file);
  const v = streamOf(probed, 'video')!;
  expect({ codec: v.codec_name, width: v.width, height: v.height, fps: v.avg_frame_rate, frames: Number(v.nb_frames) }).toEqual({
    codec: 'h264',
    ...size,
    fps: c.source.fpsRational,
    frames: expected.length,
  });
  expect(Number(v.duration)).toBeCloseTo(expected.length / c.source.fps, 3);
  return probed;
}

describe('cutClip (real ffmpeg, decoded output)', () => {
  it('cuts segments out of order, repeated and across a keyframe to their exact frames at 29.97 fps', async () => {
    const c = await cut(ntsc, 'ntsc.mp4', [
      { start: 8.2, end: 8.7 }, // crosses the keyframe at frame 250 (8.341 s)
      { start: 1.01, end: 2.5 }, // starts 30 frames after a keyframe, between frame boundaries
      { start: 0, end: 0.4 },
      { start: 1.01, end: 2.5 }, // repeated
      { start: 11.5, end: 12.5 }, // past the end by less than a frame: clamped to the last frame
    ]);
    expect(c.segments.map((s) => s.startFrame)).toEqual([245, 30, 0, 30, 344]);
    expect(c.segments.at(-1)!.startFrame + c.segments.at(-1)!.frames).toBe(360);
    await expectExactVideo(c, { width: 320, height: 240 });
    expect(c.progress.at(-1)).toBe(1);
    expect(c.progress).toEqual([...c.progress].sort((a, b) => a - b));
  });

  it('cuts a 1080p source at 25 fps to its exact frames, keeping its size', async () => {
    const c = await cut(hd, 'hd.mp4', [
      { start: 2.21, end: 3.3 },
      { start: 0.5, end: 1.02 },
    ]);
    expect(c.segments.map((s) => [s.startFrame, s.frames])).toEqual([
      [55, 27],
      [12, 13],
    ]);
    await expectExactVideo(c, { width: 1920, height: 1080 });
  });

  it('cuts a source without audio to a video-only clip', async () => {
    const c = await cut(silent, 'silent.mp4', [
      { start: 3.3, end: 3.9 },
      { start: 9.9, end: 10.1 },
    ]);
    const probed = await expectExactVideo(c, { width: 320, height: 240 });
    expect(streamOf(probed, 'audio')).toBeUndefined();
  });

  describe('ten segments', () => {
    let c: Cut;
    const ranges = Array.from({ length: 10 }, (_, i) => ({ start: 0.37 + i * 1.13, end: 0.37 + i * 1.13 + 0.45 + (i % 3) * 0.2 }));

    beforeAll(async () => {
      c = await cut(ntsc, 'ten.mp4', ranges);
    });

    it('shows exactly the frames of every segment', async () => {
      const probed = await expectExactVideo(c, { width: 320, height: 240 });
      const a = streamOf(probed, 'audio')!;
      expect({ codec: a.codec_name, rate: a.sample_rate }).toEqual({ codec: 'aac', rate: '48000' });
      // Audio cut on the same snapped times: as long as the video within one AAC frame.
      const videoSeconds = expectedFrames(c.segments).length / c.source.fps;
      expect(Math.abs(Number(a.duration) - videoSeconds)).toBeLessThanOrEqual(1024 / SAMPLE_RATE);
    });

    it('keeps the sound in step with the picture: every source time marker lands where its frame does', async () => {
      const onsets = markerOnsets(await audioSamples(c.file, 1), 0.2, 0.02);
      const starts = segmentStarts(c.segments, c.source.fps);
      let checked = 0;
      c.segments.forEach((s, i) => {
        for (let m = Math.ceil(s.start / MARKER_PERIOD) * MARKER_PERIOD; m < s.end; m += MARKER_PERIOD) {
          // Markers in a fade or cut by the segment's edges are not whole: skip them.
          if (m - s.start < 2 * JOIN_FADE_SECONDS || s.end - m < 2 * JOIN_FADE_SECONDS + MARKER_SECONDS) continue;
          const expected = starts[i]! + (m - s.start);
          const nearest = onsets.reduce((best, t) => (Math.abs(t - expected) < Math.abs(best - expected) ? t : best), Number.POSITIVE_INFINITY);
          expect(Math.abs(nearest - expected), `marker at source ${m} s in segment ${i + 1}`).toBeLessThan(0.002);
          checked++;
        }
      });
      expect(checked).toBeGreaterThanOrEqual(8);
    });

    it('fades to silence at every join, without a click', async () => {
      const tone = await audioSamples(c.file, 0);
      const starts = segmentStarts(c.segments, c.source.fps);
      // A pure tone moves at most A·2·sin(π·f/rate) per sample (0.029 here); the encoder adds a
      // little. A join without fades jumps by up to 2·A (the phases of two cuts do not match).
      const smooth = TONE_AMPLITUDE * 2 * Math.sin((Math.PI * TONE_HZ) / SAMPLE_RATE);
      const bound = 2 * smooth;
      const window = (from: number, to: number) => tone.subarray(Math.max(0, Math.round(from * SAMPLE_RATE)), Math.round(to * SAMPLE_RATE));
      const maxStep = (x: Float32Array) => x.reduce((m, v, i) => (i === 0 ? m : Math.max(m, Math.abs(v - x[i - 1]!))), 0);
      const peak = (x: Float32Array) => x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      // Away from the joins, the tone plays at full level and moves as a tone does.
      expect(peak(window(0.1, 0.2))).toBeGreaterThan(0.9 * TONE_AMPLITUDE);
      expect(maxStep(window(0.1, 0.2))).toBeLessThan(bound);
      for (const join of starts.slice(1, -1)) {
        expect(maxStep(window(join - 0.03, join + 0.03)), `join at ${join.toFixed(3)} s`).toBeLessThan(bound);
        // The fades meet at the join: near silence within ±0.5 ms, full level again 30 ms away.
        expect(peak(window(join - 0.0005, join + 0.0005)), `join at ${join.toFixed(3)} s`).toBeLessThan(0.05);
        expect(peak(window(join + 0.02, join + 0.04))).toBeGreaterThan(0.9 * TONE_AMPLITUDE);
      }
    });

    it('re-times a transcript onto the same frames the clip shows', async () => {
      // A word every 0.3 s across the source, each 0.2 s long.
      const words = Array.from({ length: 40 }, (_, i) => ({ word: `w${i}`, start: i * 0.3, end: i * 0.3 + 0.2, probability: 1 }));
      const parent: TranscriptV2 = { version: 2, language: 'en', duration: 12, segments: [{ id: 0, start: 0, end: 12, text: '', words }] };
      const retimed = retimeTranscript(parent, c.segments);
      const frames = await readFrameNumbers(c.file);
      const duration = Number((await probeStreams(c.file)).duration);
      expect(retimed.duration).toBeCloseTo(frames.length / c.source.fps, 3);
      const placed = retimed.segments.flatMap((s) => s.words);
      expect(placed.length).toBeGreaterThan(10);
      for (const w of placed) {
        expect(w.start).toBeGreaterThanOrEqual(0);
        expect(w.end).toBeLessThanOrEqual(duration + 0.001);
        // Where the clip shows a word start, it shows the source frame of that moment (±1 for ms rounding).
        const source = words.find((x) => x.word === w.word)!;
        if (w.start > 0 && !retimed.segments.some((s) => s.start === w.start)) {
          const shown = frames[Math.floor(w.start * c.source.fps + 1e-6)]!;
          expect(Math.abs(shown - Math.floor(source.start * c.source.fps + 1e-6))).toBeLessThanOrEqual(1);
        }
      }
    });
  });
});
