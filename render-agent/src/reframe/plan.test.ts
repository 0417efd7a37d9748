import { describe, expect, it } from 'vitest';
import type { ExtractVerticalClipParams } from '@cutroom/proto';
import { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { PipelineError } from '../errors.ts';
import type { VideoStreamInfo } from '../executors/video-probe.ts';
import { chosenBecause, planReframe } from './plan.ts';

const video = (width: number, height: number): VideoStreamInfo => ({
  width,
  height,
  fps: 25,
  fpsRational: '25/1',
  sar: '1:1',
  durationSeconds: 60,
  hasAudio: true,
  codec: 'h264',
});

const params = (p: Partial<ExtractVerticalClipParams>): ExtractVerticalClipParams => ({
  start: 10,
  end: 20,
  profile: 'vidA-primary',
  aspect: '9:16',
  subject: 'center',
  subject_id: null,
  subject_box: null,
  t_ref: null,
  subject_x_offset: 0,
  ...p,
});

// center and manual never start ffmpeg: these run without media (the others are in test/reframe.test.ts).
const plan = (v: VideoStreamInfo, p: Partial<ExtractVerticalClipParams>) =>
  planReframe({
    ffmpegPath: '/nonexistent/ffmpeg',
    source: '/nonexistent/source',
    start: 10,
    end: 20,
    video: v,
    params: params(p),
    outWidth: 1080,
    outHeight: 1920,
    workDir: '/nonexistent',
    signal: new AbortController().signal,
  });

describe('planReframe without detection', () => {
  it('center: one centered point, no detector, a valid document', async () => {
    const doc = await plan(video(1920, 1080), {});
    expect(SubjectsV1.parse(doc)).toEqual(doc);
    expect(doc.crop).toEqual({ width: 608, height: 1080, scaled_only: false, path: [{ t: 0, x: 656, y: 0 }] });
    expect(doc).toMatchObject({
      detector: null,
      subjects: [],
      shots: [],
      chosen_subject_id: null,
      chosen_because: 'center: the middle of the frame, as asked',
      clip: { start: 10, end: 20 },
    });
  });

  it('manual: centered on the box, shifted by subject_x_offset (output px → source px)', async () => {
    const box = { x: 1200, y: 300, w: 200, h: 200 };
    expect((await plan(video(1920, 1080), { subject: 'manual', subject_box: box })).crop.path).toEqual([{ t: 0, x: 996, y: 0 }]);
    // 108 output px = 108 × 608 / 1080 = 60.8 source px: 1300 − 60.8 − 304 = 935.2 → 936.
    expect((await plan(video(1920, 1080), { subject: 'manual', subject_box: box, subject_x_offset: 108 })).crop.path).toEqual([{ t: 0, x: 936, y: 0 }]);
  });

  it('manual: clamps at the frame edges', async () => {
    expect((await plan(video(1920, 1080), { subject: 'manual', subject_box: { x: 0, y: 0, w: 50, h: 50 } })).crop.path[0]!.x).toBe(0);
    expect((await plan(video(1920, 1080), { subject: 'manual', subject_box: { x: 1880, y: 0, w: 40, h: 40 } })).crop.path[0]!.x).toBe(1312);
  });

  it('manual without a box is our bug, not the caller’s', async () => {
    await expect(plan(video(1920, 1080), { subject: 'manual' })).rejects.toMatchObject({ name: 'PipelineError', code: 'internal' });
    await expect(plan(video(1920, 1080), { subject: 'manual' })).rejects.toBeInstanceOf(PipelineError);
  });

  it('a vertical source is scaled, not cropped', async () => {
    const doc = await plan(video(1080, 1920), { subject: 'manual', subject_box: { x: 100, y: 100, w: 100, h: 100 } });
    expect(doc.crop).toEqual({ width: 1080, height: 1920, scaled_only: true, path: [{ t: 0, x: 0, y: 0 }] });
    expect(doc.detector).toBeNull();
  });

  it('the feed shapes crop a wider window from the same centre, and scale a source already as narrow', async () => {
    // 4:5 of 1920x1080: 864 wide, centred at 528; a manual box centred at x 1300 puts the window at 868.
    expect((await plan(video(1920, 1080), { aspect: '4:5' })).crop).toEqual({ width: 864, height: 1080, scaled_only: false, path: [{ t: 0, x: 528, y: 0 }] });
    const box = { x: 1200, y: 300, w: 200, h: 200 };
    expect((await plan(video(1920, 1080), { aspect: '1:1', subject: 'manual', subject_box: box })).crop).toEqual({
      width: 1080,
      height: 1080,
      scaled_only: false,
      path: [{ t: 0, x: 760, y: 0 }],
    });
    const square = await plan(video(1080, 1920), { aspect: '1:1' });
    expect(square.crop).toMatchObject({ width: 1080, height: 1920, scaled_only: true });
    expect(square.chosen_because).toMatch(/^the source is already as narrow as 1:1: scaled, not cropped/);
  });
});

describe('chosenBecause', () => {
  const detector = { name: 'd', sample_interval_s: 0.25, frames_sampled: 24 };
  const subject = (id: string, presence: number) => ({ id, kind: 'face' as const, presence, mean_area: 0.01, boxes: [] });
  it('names the rule that chose the subject, or says why there is none', () => {
    expect(chosenBecause({ subjects: [subject('s1', 0.9), subject('s2', 0.2)], rejectedDetections: 0, detector }, null)).toBe(
      "s1: the clip's dominant face (largest presence × mean area; seen in 90 % of the samples; 1 other subject), each shot framing its own dominant face",
    );
    expect(chosenBecause({ subjects: [subject('s1', 1)], rejectedDetections: 0, detector }, 's2')).toBe('s2: the subject_id asked for');
    expect(chosenBecause({ subjects: [], rejectedDetections: 5, detector }, null)).toBe(
      'no face-like subject in 24 samples read (a face must be seen in 3 samples and 30 % of its shot; 5 detections were not face-like): the window stays centred',
    );
  });

  it('names the face speaking, the most central of faces as large, and says when no one was found speaking', () => {
    const d = { subjects: [subject('s1', 1), subject('s2', 1)], rejectedDetections: 0, detector };
    const speaking = {
      scores: [
        { subject_id: 's1', score: 0.004, voiced_intervals: 15, unvoiced_intervals: 6 },
        { subject_id: 's2', score: 0.106, voiced_intervals: 15, unvoiced_intervals: 6 },
      ],
      speaker: 's2',
    };
    expect(chosenBecause(d, null, [{ start: 0, end: 6, subjectId: 's2', rule: 'speaking', speaking }])).toBe(
      "s2: the face speaking (its mouth moves while there is voice and keeps still while there is none: score 0.106 against s1's 0.004)",
    );
    expect(chosenBecause(d, null, [{ start: 0, end: 6, subjectId: 's2', rule: 'central' }])).toBe(
      "s2: the most central of faces about the same size (within 20 % of the largest's area)",
    );
    const nobody = { ...speaking, speaker: null };
    expect(chosenBecause(d, null, [{ start: 0, end: 6, subjectId: 's1', rule: 'largest', speaking: nobody }])).toMatch(
      /^s1: the clip's dominant face .*; no face was found speaking \(shots\[\]\.speaking\)$/,
    );
    // The subject framed longest is the one the document names, and other shots point to their own rule.
    expect(
      chosenBecause(d, null, [
        { start: 0, end: 2, subjectId: 's1', rule: 'largest' },
        { start: 2, end: 6, subjectId: 's2', rule: 'speaking', speaking },
      ]),
    ).toMatch(/^s2: the face speaking .*; other shots by their own rule \(shots\[\]\.rule\)$/);
  });
});
