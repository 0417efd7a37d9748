import fs from 'node:fs/promises';
import path from 'node:path';
import type { CompleteRequest, MediaInfo, TranscribeAssignment } from '@cutroom/proto';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { PipelineError } from '../errors.ts';
import { extractAudio } from '../executors/ffmpeg.ts';
import { assertTranscribable, probeMedia } from '../executors/probe.ts';
import { transcribeWithWhisper } from '../executors/whisper.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { confirmStillHolding, reportStage } from './fenced-calls.ts';
import { downloadSource, uploadOutput } from './http-transfer.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { type LimitedStage, runWithinLimit, stageLimitMs } from './stage-limit.ts';
import { buildTranscriptOutputs, isTranscribeOutputName } from './transcript-outputs.ts';

/**
 * transcribe: source → probe → 16 kHz WAV → Whisper → transcript outputs. The job is already
 * `extracting_audio` when claimed, so only `transcribing` is reported as a stage.
 */
export const transcribePipeline: Pipeline<'transcribe'> = {
  kind: 'transcribe',
  missing: unmet(ffmpegRuns, fasterWhisperRuns, whisperModelAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => transcribeInto(dir, a, signal, ctx)),
};

async function transcribeInto(dir: string, a: TranscribeAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const { config, progress, logger: log, clock } = ctx;
  const source = path.join(dir, 'source');
  const audio = path.join(dir, 'audio.wav');

  // Each child runs under a wall-clock limit (stage-limit.ts): one that hangs is killed and the
  // attempt fails as stage_timeout, instead of its heartbeats keeping the lease forever.
  const within = <T>(stage: LimitedStage, mediaSeconds: number, run: (s: AbortSignal) => Promise<T>) => {
    const limitMs = stageLimitMs(stage, mediaSeconds, config.stageTimeouts);
    log.debug({ stage, limit_ms: limitMs }, 'stage limit');
    return runWithinLimit({ stage, limitMs, signal, clock }, run);
  };

  const sourceBytes = await downloadSource(a.source.get_url, source, a.source.size, signal, clock);
  log.info({ bytes: sourceBytes }, 'source downloaded');
  progress.report('extracting_audio', 0);
  const media: MediaInfo = await within('probe', 0, (s) => probeMedia(config.ffprobePath, source, s));
  assertTranscribable(media);
  log.info({ media }, 'source probed');
  await within('extract', media.duration_seconds, (s) =>
    extractAudio({
      ffmpegPath: config.ffmpegPath,
      input: source,
      output: audio,
      durationSeconds: media.duration_seconds,
      signal: s,
      onProgress: (f) => progress.report('extracting_audio', f),
    }),
  );
  progress.report('extracting_audio', 1);
  progress.flush();
  // The source can be gigabytes; Whisper needs only the WAV from here on.
  await fs.rm(source, { force: true });

  // The probe travels with the stage report: the coordinator checks it against what was paid for.
  await reportStage(ctx, 'transcribing', media, signal);
  progress.report('transcribing', 0);
  const transcript = await within('transcribe', media.duration_seconds, (s) =>
    transcribeWithWhisper({
      python: config.python,
      audioPath: audio,
      model: a.params.model || config.whisper.model,
      device: ctx.whisper.device,
      computeType: ctx.whisper.computeType,
      beamSize: config.whisper.beamSize,
      language: a.params.language,
      allowDownload: config.whisper.allowDownload,
      signal: s,
      logger: log,
      onSpawn: (pid) => log.debug({ pid }, 'whisper child started'),
      onProgress: (f) => progress.report('transcribing', f),
    }),
  );
  progress.flush();
  log.info({ language: transcript.language, segments: transcript.segments.length, media_seconds: media.duration_seconds }, 'transcribed');

  const bodies = buildTranscriptOutputs(transcript);
  await confirmStillHolding(ctx, signal);
  const outputs: { name: string; bytes: number }[] = [];
  for (const [name, target] of Object.entries(a.outputs)) {
    if (!isTranscribeOutputName(name)) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${name}`);
    await uploadOutput(name, target, bodies[name], signal, clock);
    outputs.push({ name, bytes: bodies[name].byteLength });
  }
  return { ...ctx.fence, job_type: 'transcribe', media, language: transcript.language, outputs };
}
