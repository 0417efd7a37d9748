import fs from 'node:fs/promises';
import path from 'node:path';
import type { CompleteRequest, CutSegment, EditFromTranscriptAssignment, ExtractClipAssignment, MediaInfo } from '@cutroom/proto';
import { extractClipContract } from '@cutroom/shared/contracts/extract-clip';
import { retimeTranscript } from '@cutroom/shared/transcript/retime';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { ffmpegRuns, h264EncoderAvailable, unmet } from '../capabilities/requirements.ts';
import { inputFailure, PipelineError } from '../errors.ts';
import { cutClip, cutSeconds, type SnappedSegment, snapSegments } from '../executors/cut.ts';
import { h264EncoderOf } from '../executors/h264-encoder.ts';
import { probeMedia } from '../executors/probe.ts';
import { probeVideo, type VideoStreamInfo } from '../executors/video-probe.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { elapsedSeconds } from './attempt-stats.ts';
import { confirmStillHolding } from './fenced-calls.ts';
import { downloadSource, redactUrl, uploadOutputs } from './http-transfer.ts';
import { type OutputSources, type OutputWrites, refuseUnknownOutputs } from './output-writes.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { type LimitedStage, runWithinLimit, stageLimitMs } from './stage-limit.ts';
import { buildTranscriptOutputs, TRANSCRIPT_WRITES } from './transcript-outputs.ts';

/**
 * Both cut-and-join types (extract_clip here, edit_from_transcript in ./edit-from-transcript.ts)
 * write the clip (streamed from disk) and, when asked, the re-timed transcript files.
 */
export const CUT_AND_JOIN_WRITES = { clip: 'file', ...TRANSCRIPT_WRITES } as const satisfies OutputWrites<'extract_clip'> &
  OutputWrites<'edit_from_transcript'>;

/**
 * extract_clip: the parent's stored source → probe → one ffmpeg run that cuts every segment on
 * the source's frame grid and joins them into one mp4 → probe of the result → the parent's
 * transcript re-timed to the cut (when asked) → outputs `clip`, `transcript_srt`,
 * `transcript_words`. The job is `analyzing` from its claim to its end (its only stage), so no
 * stage is reported; the encode's progress goes out as `analyzing`.
 */
export const extractClipPipeline: Pipeline<'extract_clip'> = {
  kind: extractClipContract.workKind,
  writes: CUT_AND_JOIN_WRITES,
  missing: unmet(ffmpegRuns, h264EncoderAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => cutAndJoinInto(dir, a, signal, ctx)),
};

/** The assignments the cut-and-join pipeline renders: their params are the same segments and parent transcript. */
type CutAssignment = ExtractClipAssignment | EditFromTranscriptAssignment;

/** The cut-and-join attempt of extract_clip and edit_from_transcript, in `dir`: the complete request of its assignment's type. */
export async function cutAndJoinInto(dir: string, a: CutAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const { config, progress, logger: log, clock } = ctx;
  const source = path.join(dir, 'source');
  const output = path.join(dir, 'clip.mp4');
  const encoder = h264EncoderOf(ctx.host);

  // Every child runs under a wall-clock limit (stage-limit.ts).
  const within = <T>(stage: LimitedStage, mediaSeconds: number, run: (s: AbortSignal) => Promise<T>) =>
    runWithinLimit({ stage, limitMs: stageLimitMs(stage, mediaSeconds, config.stageTimeouts), signal, clock }, run);

  refuseUnknownOutputs(a.outputs, CUT_AND_JOIN_WRITES);
  const names = Object.keys(a.outputs);
  const wordsUrl = a.params.parent_words_url;
  if (wordsUrl === null && names.some((n) => n !== 'clip')) {
    throw new PipelineError('internal', 'the assignment asks for a transcript but gives no parent transcript to re-time');
  }

  const sourceBytes = await downloadSource(a.source.get_url, source, a.source.size, signal, clock);
  // Fetched before the encode: a presigned URL may not outlive a long one.
  const parentTranscript = wordsUrl === null ? null : await fetchParentTranscript(wordsUrl, signal);
  log.info({ bytes: sourceBytes, transcript_segments: parentTranscript?.segments.length ?? null }, 'source downloaded');
  progress.report('analyzing', 0);

  const media: MediaInfo = await within('probe', 0, (s) => probeMedia(config.ffprobePath, source, s));
  if (!media.has_video) throw inputFailure({ code: 'parent_has_no_video', params: { job_type: a.job_type } });
  const video = await within('probe', 0, (s) => probeVideo(config.ffprobePath, source, s));
  const segments = snapInside(a.params.segments, video);
  const seconds = cutSeconds(segments, video.fps);
  log.info({ media, width: video.width, height: video.height, fps: video.fpsRational, segments: segments.length, seconds, encoder }, 'source probed');

  const encodeStarted = clock.now();
  await within('encode', seconds + segments.length * SEEK_SECONDS_PER_SEGMENT, (s) =>
    cutClip({
      ffmpegPath: config.ffmpegPath,
      input: source,
      output,
      segments,
      fps: video.fps,
      fpsRational: video.fpsRational,
      hasAudio: video.hasAudio,
      encoder,
      signal: s,
      onProgress: (f) => progress.report('analyzing', f),
    }),
  );
  // Constant rate at the source's: every kept frame is one written frame.
  const encode = { encoder, frames: segments.reduce((n, s) => n + s.frames, 0), wall_seconds: elapsedSeconds(clock, encodeStarted) };
  // The source can be gigabytes; only the clip is needed from here on.
  await fs.rm(source, { force: true });
  const out = await within('probe', 0, (s) => probeVideo(config.ffprobePath, output, s));
  if (Math.abs(out.width - video.width) > 1 || Math.abs(out.height - video.height) > 1) {
    throw new PipelineError('tool_failed', `the encode wrote ${out.width}x${out.height}, not the source's ${video.width}x${video.height}`);
  }
  progress.report('analyzing', 1);
  progress.flush();
  log.info({ duration_seconds: out.durationSeconds, planned_seconds: seconds, encode }, 'clip encoded');

  const transcript = parentTranscript === null ? null : buildTranscriptOutputs(retimeTranscript(parentTranscript, segments));
  // The clip streams from disk (a long cut at CRF 18 can be gigabytes); the transcripts are small.
  const sources: OutputSources<typeof CUT_AND_JOIN_WRITES> = {
    clip: () => ({ file: output }),
    transcript_srt: () => ({ body: transcript!.transcript_srt }),
    transcript_words: () => ({ body: transcript!.transcript_words }),
  };
  await confirmStillHolding(ctx, signal);
  const outputs = await uploadOutputs(a.outputs, sources, signal, clock);
  const rendered = { duration_seconds: out.durationSeconds, width: out.width, height: out.height, fps: out.fps, encoder };
  return a.job_type === 'extract_clip'
    ? { ...ctx.fence, job_type: 'extract_clip', media, video: rendered, outputs, stats: { encode } }
    : { ...ctx.fence, job_type: 'edit_from_transcript', media, video: rendered, outputs, stats: { encode } };
}

/**
 * What the encode's time limit allows per segment on top of the output's length, in media
 * seconds: each segment decodes from the keyframe before it, up to a whole GOP that is never
 * shown. A 1080p source with 10 s GOPs took about 0.9 s a segment on two cores (50 one-word cuts
 * in 54 s); 300 cuts of an edit must not run into a limit set by their few seconds of output.
 */
const SEEK_SECONDS_PER_SEGMENT = 1;

/**
 * The segments on the source's frame grid, after checking each ends inside the video. One frame
 * of slack: the parent's duration is rounded, and its last frame may end after it.
 */
export function snapInside(segments: readonly CutSegment[], video: Pick<VideoStreamInfo, 'fps' | 'durationSeconds'>): SnappedSegment[] {
  segments.forEach((s, i) => {
    if (s.end > video.durationSeconds + 1 / video.fps) {
      // The label is the caller's: the coordinator repeats it from the job, the log line from here.
      const request = { segment_labels: segments.map((x) => x.label) };
      throw inputFailure({ code: 'ends_past_video', params: { segment: i + 1, end_seconds: s.end, video_seconds: video.durationSeconds } }, { request });
    }
  });
  return snapSegments(segments, video.fps, video.durationSeconds);
}

/** The parent's transcript v2. Ours to serve: a failure is `source_unavailable` (retried), never the caller's. */
async function fetchParentTranscript(url: string, signal: AbortSignal): Promise<TranscriptV2> {
  const what = `the parent's transcript could not be fetched from ${redactUrl(url)}`;
  let body: unknown;
  try {
    const res = await fetch(url, { signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    signal.throwIfAborted();
    throw new PipelineError('source_unavailable', `${what}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = TranscriptV2.safeParse(body);
  if (!parsed.success) throw new PipelineError('source_unavailable', `${what}: it is not a transcript v2 (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}
