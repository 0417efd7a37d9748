import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditFromTranscriptAssignment, ExtractClipAssignment } from '@cutroom/proto';
import { parseSrt } from '@cutroom/shared/transcript/srt';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { h264EncoderAvailable } from '../capabilities/requirements.ts';
import { loadAgentConfig } from '../config.ts';
import { SEGMENTS_PER_PASS } from '../executors/cut.ts';
import { type BlobServer, createPipelineContext, cutAssignmentFields, startBlobServer } from '../testing/pipeline-harness.ts';
import { editFromTranscriptPipeline } from './edit-from-transcript.ts';
import { extractClipPipeline, snapInside } from './extract-clip.ts';
import type { PipelineContext } from './pipeline.ts';

// The whole attempt on real ffmpeg with a small source; presigned URLs are a local HTTP server and
// the coordinator a set of spies. test/cut-executor.test.ts checks the cut itself frame by frame.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cutroom-clip-pipeline-'));
let blobs: BlobServer;

const word = (w: string, start: number, end: number) => ({ word: w, start, end, probability: 0.9 });
const parentTranscript: TranscriptV2 = {
  version: 2,
  language: 'en',
  duration: 4,
  segments: [
    { id: 0, start: 0.2, end: 1.8, text: 'Hello there world.', words: [word('Hello', 0.2, 0.6), word('there', 0.7, 1.1), word('world.', 1.2, 1.8)] },
    { id: 1, start: 2.5, end: 3.5, text: 'Again.', words: [word('Again.', 2.5, 3.5)] },
  ],
};

beforeAll(async () => {
  blobs = await startBlobServer();
  const { files } = blobs;
  files['/video'] = path.join(dir, 'video.mp4');
  files['/audio-only'] = path.join(dir, 'audio.m4a');
  files['/words'] = path.join(dir, 'words.json');
  fs.writeFileSync(files['/words'], JSON.stringify(parentTranscript));
  const tone = ['-f', 'lavfi', '-i', "aevalsrc='0.3*sin(2*PI*440*t)':s=48000:c=stereo:d=4"];
  await execa('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x96:rate=25:duration=4', ...tone],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', files['/video']],
  ]);
  await execa('ffmpeg', ['-v', 'error', '-y', ...tone, '-c:a', 'aac', files['/audio-only']]);
});
afterAll(async () => {
  await blobs?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-0000000000c1', attempt_id: '0190a5a0-0000-7000-8000-0000000000c2', agent_id: 'a1' };
const TYPES: Record<string, string> = { clip: 'video/mp4', transcript_srt: 'application/x-subrip', transcript_words: 'application/json' };

function assignment(source: string, segments: { start: number; end: number }[], words: string | null, outputs = Object.keys(TYPES)): ExtractClipAssignment {
  return ExtractClipAssignment.parse({
    ...cutAssignmentFields({ base: blobs.base, fence, source, outputs, types: TYPES }),
    job_type: 'extract_clip',
    params: {
      segments: segments.map((s) => ({ ...s, label: null })),
      parent_words_url: words === null ? null : `${blobs.base}${words}?X-Amz-Signature=secret`,
    },
  });
}

const context = () => createPipelineContext(dir, fence);

const run = (a: ExtractClipAssignment, ctx: PipelineContext) => extractClipPipeline.run(a, new AbortController().signal, ctx);

describe('extractClipPipeline', () => {
  it('cuts, re-times the transcript to the cut, uploads all three outputs, then completes', async () => {
    const { ctx, client, progress } = context();
    blobs.uploads.clear();
    // 2.4–3.4 then 0.44–1.6, on the 25 fps grid: 25 + 29 frames, 2.16 s.
    const outcome = await run(
      assignment(
        '/video',
        [
          { start: 2.4, end: 3.4 },
          { start: 0.44, end: 1.6 },
        ],
        '/words',
      ),
      ctx,
    );
    expect(outcome).toBe('completed');
    expect(client.fail).not.toHaveBeenCalled();
    expect(client.stage).not.toHaveBeenCalled();
    const done = client.complete.mock.calls[0]![0];
    expect(done).toMatchObject({
      ...fence,
      job_type: 'extract_clip',
      media: { has_video: true, has_audio: true, duration_seconds: expect.closeTo(4, 1) },
      video: { width: 160, height: 96, fps: 25, encoder: 'libx264', duration_seconds: expect.closeTo(2.16, 2) },
      outputs: Object.keys(TYPES).map((name) => ({ name, bytes: blobs.uploads.get(`/out/${name}`)!.body.byteLength })),
    });
    for (const [name, type] of Object.entries(TYPES)) {
      const put = blobs.uploads.get(`/out/${name}`)!;
      // Streamed or not, every PUT declares its length (S3 presigned PUTs refuse chunked bodies).
      expect({ type: put.type, length: put.length }).toEqual({ type, length: String(put.body.byteLength) });
    }

    // "Again." (2.5–3.5, mid 3.0) comes first, clamped to the range's end; then "Hello" (mid 0.4)
    // is dropped, "there" kept whole and "world." (1.2–1.8, mid 1.5) clamped at 1.6.
    const words = TranscriptV2.parse(JSON.parse(blobs.uploads.get('/out/transcript_words')!.body.toString()));
    expect(words.duration).toBe(2.16);
    expect(words.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [0.1, 1, 'Again.'],
      [1, 2.16, 'there world.'],
    ]);
    expect(words.segments[1]!.words).toEqual([word('there', 1.26, 1.66), word('world.', 1.76, 2.16)]);
    expect(parseSrt(blobs.uploads.get('/out/transcript_srt')!.body.toString()).map((c) => c.text)).toEqual(['Again.', 'there world.']);

    const fractions = progress.report.mock.calls.map(([, f]) => f as number);
    expect(new Set(progress.report.mock.calls.map(([stage]) => stage))).toEqual(new Set(['analyzing']));
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBe(1);
  });

  it('renders an edit_from_transcript cut list the same way and completes as edit_from_transcript', async () => {
    const { ctx, client } = context();
    blobs.uploads.clear();
    // An edit keeping "Again." then "Hello there": 2.4–3.6 then 0.1–1.15, on the 25 fps grid 30 + 26 frames.
    const a = EditFromTranscriptAssignment.parse({
      ...assignment('/video', [{ start: 0, end: 1 }], '/words'),
      job_type: 'edit_from_transcript',
      params: {
        segments: [
          { start: 2.4, end: 3.6, label: '[0002]' },
          { start: 0.1, end: 1.15, label: '[0001]' },
        ],
        parent_words_url: `${blobs.base}/words?X-Amz-Signature=secret`,
      },
    });
    expect(await editFromTranscriptPipeline.run(a, new AbortController().signal, ctx)).toBe('completed');
    const done = client.complete.mock.calls[0]![0];
    expect(done).toMatchObject({ job_type: 'edit_from_transcript', video: { duration_seconds: expect.closeTo(2.24, 2) } });
    const words = TranscriptV2.parse(JSON.parse(blobs.uploads.get('/out/transcript_words')!.body.toString()));
    expect(words.segments.flatMap((s) => s.words.map((w) => w.word))).toEqual(['Again.', 'Hello', 'there']);
  });

  it(`renders more segments than one ffmpeg pass opens (${SEGMENTS_PER_PASS}) in parts and joins them: every frame, one clip`, async () => {
    const { ctx, client } = context();
    blobs.uploads.clear();
    // 120 segments of 2 frames each, out of order: 240 frames, 9.6 s, in three parts.
    const segments = Array.from({ length: 120 }, (_, i) => {
      const start = ((i * 7) % 98) / 25 + 0.001;
      return { start, end: start + 0.08, label: null };
    });
    const a = EditFromTranscriptAssignment.parse({
      ...assignment('/video', [{ start: 0, end: 1 }], '/words'),
      job_type: 'edit_from_transcript',
      params: { segments, parent_words_url: `${blobs.base}/words?X-Amz-Signature=secret` },
    });
    expect(await editFromTranscriptPipeline.run(a, new AbortController().signal, ctx)).toBe('completed');
    expect(client.complete.mock.calls[0]![0]).toMatchObject({ video: { duration_seconds: expect.closeTo(9.6, 2) } });
    expect(TranscriptV2.parse(JSON.parse(blobs.uploads.get('/out/transcript_words')!.body.toString())).duration).toBe(9.6);
  });

  it('writes only the clip when no transcript is asked for', async () => {
    const { ctx, client } = context();
    blobs.uploads.clear();
    expect(await run(assignment('/video', [{ start: 0, end: 1 }], null, ['clip']), ctx)).toBe('completed');
    expect(client.complete.mock.calls[0]![0].outputs.map((o: { name: string }) => o.name)).toEqual(['clip']);
    expect([...blobs.uploads.keys()]).toEqual(['/out/clip']);
  });

  it('fails a parent without video as media_invalid', async () => {
    const { ctx, client } = context();
    expect(await run(assignment('/audio-only', [{ start: 0, end: 1 }], null, ['clip']), ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({
      code: 'media_invalid',
      message: expect.stringMatching(/^the parent has no video stream/),
      detail: { code: 'parent_has_no_video', params: { job_type: 'extract_clip' } },
    });
  });

  it('fails a segment that ends past the parent as media_invalid, naming it and the duration', async () => {
    const { ctx, client } = context();
    const segments = [
      { start: 0, end: 1 },
      { start: 3, end: 4.5 },
    ];
    expect(await run(assignment('/video', segments, null, ['clip']), ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({
      code: 'media_invalid',
      message: "segment 2 ends at 4.5 s but the parent's video is only 4.000 s long",
      detail: { code: 'ends_past_video', params: { segment: 2, end_seconds: 4.5, video_seconds: 4 } },
    });
  });

  it('fails as source_unavailable when the parent transcript cannot be fetched, without the URL signature', async () => {
    const { ctx, client } = context();
    expect(await run(assignment('/video', [{ start: 0, end: 1 }], '/gone'), ctx)).toBe('failed');
    const failed = client.fail.mock.calls[0]![0];
    expect(failed).toMatchObject({ code: 'source_unavailable', message: expect.stringMatching(/parent's transcript could not be fetched .*HTTP 404/) });
    expect(failed.message).not.toContain('secret');
  });

  it('refuses an output it cannot write as internal, before fetching the source', async () => {
    const { ctx, client } = context();
    expect(await run(assignment('/missing', [{ start: 0, end: 1 }], null, ['clip', 'thumbnail']), ctx)).toBe('failed');
    expect(client.fail.mock.calls[0]![0]).toMatchObject({ code: 'internal', message: expect.stringMatching(/thumbnail/) });
  });
});

describe('snapInside', () => {
  it('allows one frame of slack past the duration and names a labelled segment', () => {
    const video = { fps: 25, durationSeconds: 10 };
    expect(snapInside([{ start: 9, end: 10.04, label: null }], video)).toEqual([{ start: 9, end: 10, startFrame: 225, frames: 25 }]);
    // The label is in the message (the log), not a parameter: the coordinator repeats it from the job.
    expect(() => snapInside([{ start: 9, end: 10.05, label: 'outro' }], video)).toThrow(
      expect.objectContaining({
        code: 'media_invalid',
        message: "segment 1 (outro) ends at 10.05 s but the parent's video is only 10.000 s long",
        detail: { code: 'ends_past_video', params: { segment: 1, end_seconds: 10.05, video_seconds: 10 } },
      }),
    );
  });
});

describe('h264EncoderAvailable', () => {
  const config = loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:1', AGENT_TOKEN: 't', NATS_URL: 'nats://127.0.0.1:1', FFMPEG_PATH: '/opt/ffmpeg' });
  const host = context().ctx.host;

  it('is met by libx264 or NVENC, with aac', () => {
    expect(h264EncoderAvailable(host, config)).toBeNull();
    expect(h264EncoderAvailable({ ...host, nvenc: true, ffmpeg: { version: '5.1', encoders: ['aac', 'h264_nvenc'] } }, config)).toBeNull();
  });

  it('says what is missing', () => {
    expect(h264EncoderAvailable({ ...host, ffmpeg: { version: '5.1', encoders: ['aac'] } }, config)).toMatch(
      /^ffmpeg at \/opt\/ffmpeg lacks an H\.264 encoder \(libx264, or h264_nvenc/,
    );
    expect(h264EncoderAvailable({ ...host, ffmpeg: { version: '5.1', encoders: [] } }, config)).toMatch(/lacks an H\.264 encoder .* and the aac encoder/);
    // An ffmpeg that does not run is ffmpegRuns' line, not this one.
    expect(h264EncoderAvailable({ ...host, ffmpeg: { version: null, encoders: [], error: 'ENOENT' } }, config)).toBeNull();
  });
});
