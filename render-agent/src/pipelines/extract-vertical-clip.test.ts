import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractVerticalClipAssignment } from '@cutroom/proto';
import { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { type BlobServer, createPipelineContext, cutAssignmentFields, startBlobServer } from '../testing/pipeline-harness.ts';
import { extractVerticalClipPipeline } from './extract-vertical-clip.ts';

// The whole attempt on real ffmpeg with a small source; presigned URLs are a local HTTP server and
// the coordinator a set of spies. Detection does not run: `center` plans without it.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutroom-vertical-pipeline-'));
let blobs: BlobServer;

beforeAll(async () => {
  blobs = await startBlobServer();
  const { files } = blobs;
  files['/video'] = path.join(dir, 'video.mp4');
  files['/audio-only'] = path.join(dir, 'audio.m4a');
  const tone = ['-f', 'lavfi', '-i', "aevalsrc='0.02*sin(2*PI*440*t)*(1+sin(2*PI*3*t))':s=48000:c=stereo:d=3"];
  await execa('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x180:rate=25:duration=3',
    ...tone,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    files['/video'],
  ]);
  await execa('ffmpeg', ['-v', 'error', '-y', ...tone, '-c:a', 'aac', files['/audio-only']]);
});
afterAll(async () => {
  await blobs?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-0000000000a1', attempt_id: '0190a5a0-0000-7000-8000-0000000000a2', agent_id: 'a1' };

function assignment(source: string, params: { start: number; end: number }, outputs = ['clip', 'subjects']): ExtractVerticalClipAssignment {
  const types: Record<string, string> = { clip: 'video/mp4', subjects: 'application/json' };
  return ExtractVerticalClipAssignment.parse({
    ...cutAssignmentFields({ base: blobs.base, fence, source, outputs, types }),
    job_type: 'extract_vertical_clip',
    params: { ...params, profile: 'vidA-primary-720p', subject: 'center', subject_id: null, subject_box: null, t_ref: null, subject_x_offset: 0 },
  });
}

const context = () => createPipelineContext(dir, fence);

describe('extractVerticalClipPipeline', () => {
  it('renders, measures and uploads the clip and its subjects document, then completes', async () => {
    const { ctx, client, progress } = context();
    blobs.uploads.clear();
    const outcome = await extractVerticalClipPipeline.run(assignment('/video', { start: 0.5, end: 2.5 }), new AbortController().signal, ctx);
    expect(outcome).toBe('completed');
    expect(client.fail).not.toHaveBeenCalled();
    expect(client.stage).not.toHaveBeenCalled();
    expect(client.heartbeat).toHaveBeenCalled(); // confirmStillHolding before the uploads
    const done = client.complete.mock.calls[0]![0];
    expect(done).toMatchObject({
      ...fence,
      job_type: 'extract_vertical_clip',
      media: { has_video: true, has_audio: true },
      video: { width: 720, height: 1280, fps: 25, encoder: 'libx264' },
      outputs: [
        { name: 'clip', bytes: blobs.uploads.get('/out/clip')!.body.byteLength },
        { name: 'subjects', bytes: blobs.uploads.get('/out/subjects')!.body.byteLength },
      ],
    });
    expect(Math.abs(done.video.duration_seconds - 2)).toBeLessThanOrEqual(0.1);
    expect(done.loudness.input_integrated_lufs).toBeLessThan(-25);
    expect(Math.abs(done.loudness.output_integrated_lufs + 14)).toBeLessThanOrEqual(0.5);
    expect(done.loudness.output_true_peak_dbtp).toBeLessThanOrEqual(-1.4);
    const clip = blobs.uploads.get('/out/clip')!;
    expect({ type: clip.type, length: clip.length }).toEqual({ type: 'video/mp4', length: String(clip.body.byteLength) });
    const doc = SubjectsV1.parse(JSON.parse(blobs.uploads.get('/out/subjects')!.body.toString()));
    expect(doc).toMatchObject({ strategy: 'center', clip: { start: 0.5, end: 2.5 }, crop: { scaled_only: false } });
    // One status throughout, fractions never going back, ending at 1.
    expect(new Set(progress.report.mock.calls.map(([stage]) => stage))).toEqual(new Set(['analyzing']));
    const fractions = progress.report.mock.calls.map(([, f]) => f as number);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBe(1);
    expect(new Set(progress.report.mock.calls.map((c) => c[2]))).toEqual(new Set(['detecting subjects', 'measuring loudness', 'encoding']));
  });

  it('fails a parent without video as media_invalid', async () => {
    const { ctx, client } = context();
    expect(await extractVerticalClipPipeline.run(assignment('/audio-only', { start: 0, end: 1 }), new AbortController().signal, ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({
      code: 'media_invalid',
      message: 'the parent has no video: a vertical clip needs one',
      detail: { code: 'parent_has_no_video', params: { job_type: 'extract_vertical_clip' } },
    });
  });

  it('fails a clip that ends past the parent as media_invalid', async () => {
    const { ctx, client } = context();
    expect(await extractVerticalClipPipeline.run(assignment('/video', { start: 1, end: 3.5 }), new AbortController().signal, ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({
      code: 'media_invalid',
      message: expect.stringMatching(/ends at 3\.5 s/),
      detail: { code: 'ends_past_video', params: { end_seconds: 3.5 } },
    });
  });

  it('refuses an output it cannot write as internal, before fetching the source', async () => {
    const { ctx, client } = context();
    const a = assignment('/missing', { start: 0, end: 1 }, ['clip', 'thumbnail']);
    expect(await extractVerticalClipPipeline.run(a, new AbortController().signal, ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({ code: 'internal', message: expect.stringMatching(/thumbnail/) });
  });
});
