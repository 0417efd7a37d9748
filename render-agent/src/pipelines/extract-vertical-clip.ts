import fs from 'node:fs/promises';
import path from 'node:path';
import type { CompleteRequest, ExtractVerticalClipAssignment, MediaInfo } from '@cutroom/proto';
import { extractVerticalClipContract } from '@cutroom/shared/contracts/extract-vertical-clip';
import { LOUDNESS_TARGET, outputSize, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { ffmpegRuns, h264EncoderAvailable, unmet } from '../capabilities/requirements.ts';
import { inputFailure, PipelineError } from '../errors.ts';
import { h264EncoderOf } from '../executors/h264-encoder.ts';
import { type LoudnessPlan, measureEbur128, measureLoudness, planLoudness } from '../executors/loudness.ts';
import { probeMedia } from '../executors/probe.ts';
import { renderVerticalClip } from '../executors/vertical-render.ts';
import { probeVideo } from '../executors/video-probe.ts';
import { cropFilter } from '../reframe/crop-filter.ts';
import { planReframe } from '../reframe/plan.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { elapsedSeconds } from './attempt-stats.ts';
import { confirmStillHolding } from './fenced-calls.ts';
import { downloadSource, uploadOutputs } from './http-transfer.ts';
import { type OutputSources, type OutputWrites, refuseUnknownOutputs } from './output-writes.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { type LimitedStage, runWithinLimit, stageLimitMs } from './stage-limit.ts';

/** The clip streams from disk; the subjects document is built in memory. */
const WRITES = { clip: 'file', subjects: 'memory' } as const satisfies OutputWrites<'extract_vertical_clip'>;

/**
 * extract_vertical_clip: the parent's stored source → reframe plan (subjects v1) → loudness
 * measurement → one render to the profile's mp4 in the asked aspect (9:16 by default) → probe and loudness of the result →
 * outputs `clip` and `subjects`. The job is `analyzing` from its claim to its end (its only
 * stage), so no stage is reported; progress goes out as `analyzing` with a message per step.
 */
export const extractVerticalClipPipeline: Pipeline<'extract_vertical_clip'> = {
  kind: extractVerticalClipContract.workKind,
  writes: WRITES,
  missing: unmet(ffmpegRuns, h264EncoderAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => extractVerticalClipInto(dir, a, signal, ctx)),
};

/** Share of the `analyzing` progress each step takes: where it starts and how much it spans. */
const STEPS = {
  detect: { from: 0, span: 0.3, message: 'detecting subjects' },
  loudness: { from: 0.3, span: 0.1, message: 'measuring loudness' },
  encode: { from: 0.4, span: 0.6, message: 'encoding' },
} as const;

type VerticalClipComplete = Extract<CompleteRequest, { job_type: 'extract_vertical_clip' }>;

async function extractVerticalClipInto(dir: string, a: ExtractVerticalClipAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const { config, progress, logger: log, clock } = ctx;
  const { start, end } = a.params;
  const profile = VERTICAL_PROFILES[a.params.profile];
  const size = outputSize(a.params.profile, a.params.aspect);
  const encoder = h264EncoderOf(ctx.host);
  const source = path.join(dir, 'source');
  const output = path.join(dir, 'clip.mp4');
  const clipSeconds = end - start;

  // Every child runs under a wall-clock limit from the clip's length (stage-limit.ts).
  const within = <T>(stage: LimitedStage, mediaSeconds: number, run: (s: AbortSignal) => Promise<T>) =>
    runWithinLimit({ stage, limitMs: stageLimitMs(stage, mediaSeconds, config.stageTimeouts), signal, clock }, run);
  const report = (step: keyof typeof STEPS, f: number) => {
    const s = STEPS[step];
    progress.report('analyzing', s.from + s.span * Math.min(1, Math.max(0, f)), s.message);
  };

  refuseUnknownOutputs(a.outputs, WRITES);

  const sourceBytes = await downloadSource(a.source.get_url, source, a.source.size, signal, clock);
  log.info({ bytes: sourceBytes }, 'source downloaded');
  report('detect', 0);
  const media: MediaInfo = await within('probe', 0, (s) => probeMedia(config.ffprobePath, source, s));
  if (!media.has_video) throw inputFailure({ code: 'parent_has_no_video', params: { job_type: 'extract_vertical_clip' } });
  const video = await within('probe', 0, (s) => probeVideo(config.ffprobePath, source, s));
  // One frame of slack: a parent's duration is rounded, and the last frame may end after it.
  if (end > video.durationSeconds + 1 / video.fps) {
    throw inputFailure({ code: 'ends_past_video', params: { end_seconds: end, video_seconds: video.durationSeconds } });
  }
  log.info({ media, width: video.width, height: video.height, fps: video.fps, profile: a.params.profile, aspect: a.params.aspect, encoder }, 'source probed');

  const subjects = await within('detect', clipSeconds, (s) =>
    planReframe({
      ffmpegPath: config.ffmpegPath,
      source,
      start,
      end,
      video,
      params: a.params,
      outWidth: size.width,
      outHeight: size.height,
      workDir: dir,
      signal: s,
      onProgress: (f) => report('detect', f),
    }),
  );
  const doc = SubjectsV1.parse(subjects);
  report('detect', 1);
  log.info({ strategy: doc.strategy, chosen: doc.chosen_subject_id, crop_points: doc.crop.path.length, scaled_only: doc.crop.scaled_only }, 'reframe planned');

  // A source without audio gives a silent clip; its loudness is null.
  let loudness: LoudnessPlan | null = null;
  if (video.hasAudio) {
    let passes = 0;
    loudness = await planLoudness(async (preFilter) => {
      const n = passes++;
      // The plan takes 1 to 1 + MAX_LIMITED_MEASURES passes; each fills a quarter of the step.
      return within('encode', clipSeconds, (s) =>
        measureLoudness({
          ffmpegPath: config.ffmpegPath,
          input: source,
          start,
          duration: clipSeconds,
          preFilter,
          signal: s,
          onProgress: (f) => report('loudness', (n + f) / 4),
        }),
      );
    });
    log.info({ mode: loudness.mode, input_lufs: loudness.inputIntegratedLufs, gain_db: loudness.gainDb, measures: loudness.measures }, 'loudness planned');
    report('loudness', 1);
  }

  const crop = await cropFilter(doc, video.fps, dir);
  const encodeStarted = clock.now();
  await within('encode', clipSeconds, (s) =>
    renderVerticalClip({
      ffmpegPath: config.ffmpegPath,
      input: source,
      output,
      start,
      duration: clipSeconds,
      cropFilter: crop,
      width: size.width,
      height: size.height,
      audioFilter: loudness?.filter ?? null,
      encoder,
      settings: { preset: profile.preset, rate: profile.rate },
      signal: s,
      onProgress: (f) => report('encode', f),
    }),
  );
  const encodeSeconds = elapsedSeconds(clock, encodeStarted);
  // The source can be gigabytes; from here on only the clip is read.
  await fs.rm(source, { force: true });

  const out = await within('probe', 0, (s) => probeVideo(config.ffprobePath, output, s));
  if (out.width !== size.width || out.height !== size.height) {
    throw new PipelineError(
      'tool_failed',
      `the encode wrote ${out.width}x${out.height}, not ${size.width}x${size.height} (${a.params.profile}, ${a.params.aspect})`,
    );
  }
  let loudnessResult: VerticalClipComplete['loudness'] = null;
  if (loudness) {
    const measured = await within('encode', clipSeconds, (s) => measureEbur128(config.ffmpegPath, output, s, clipSeconds));
    loudnessResult = {
      input_integrated_lufs: loudness.inputIntegratedLufs,
      output_integrated_lufs: measured.integratedLufs,
      output_true_peak_dbtp: measured.truePeakDbtp,
    };
    const isOnTarget = Math.abs(measured.integratedLufs - LOUDNESS_TARGET.integratedLufs) <= 0.5 && measured.truePeakDbtp <= LOUDNESS_TARGET.truePeakDbtp + 0.1;
    // Delivered either way (the completion reports what was measured); off target means the plan needs a look.
    if (!isOnTarget && loudness.mode !== 'silent') log.warn({ loudness: loudnessResult, mode: loudness.mode }, 'clip loudness is off target');
  }
  report('encode', 1);
  progress.flush();
  const encode = { encoder, frames: Math.round(out.durationSeconds * out.fps), wall_seconds: encodeSeconds };
  log.info({ duration_seconds: out.durationSeconds, loudness: loudnessResult, encode }, 'vertical clip rendered');

  // The clip streams from disk; the subjects document is small.
  const sources: OutputSources<typeof WRITES> = {
    clip: () => ({ file: output }),
    subjects: () => ({ body: Buffer.from(`${JSON.stringify(doc)}\n`) }),
  };
  await confirmStillHolding(ctx, signal);
  const outputs = await uploadOutputs(a.outputs, sources, signal, clock);
  return {
    ...ctx.fence,
    job_type: 'extract_vertical_clip',
    media,
    video: { duration_seconds: out.durationSeconds, width: out.width, height: out.height, fps: out.fps, encoder },
    loudness: loudnessResult,
    outputs,
    stats: { encode },
  };
}
