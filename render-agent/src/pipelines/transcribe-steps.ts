import fs from 'node:fs/promises';
import path from 'node:path';
import type { MediaInfo, SourceRef, TranscriptionStats } from '@cutroom/proto';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { extractAudio } from '../executors/ffmpeg.ts';
import { assertTranscribable, probeMedia } from '../executors/probe.ts';
import { transcribeWithWhisper } from '../executors/whisper.ts';
import { elapsedSeconds } from './attempt-stats.ts';
import { reportStage } from './fenced-calls.ts';
import { downloadSource } from './http-transfer.ts';
import { fetchRemoteSource } from './source-fetch.ts';
import type { PipelineContext } from './pipeline.ts';
import { type LimitedStage, runWithinLimit, stageLimitMs } from './stage-limit.ts';

export interface TranscribeSourceParams {
  source: SourceRef;
  /** ISO 639-1 code to force, or null to detect. */
  language: string | null;
  /** Whisper model name from the assignment (empty: the agent's configured one). */
  model: string;
}

/** Runs a stage's child under its wall-clock limit (stage-limit.ts). */
export function withinLimit(ctx: PipelineContext, signal: AbortSignal) {
  return <T>(stage: LimitedStage, mediaSeconds: number, run: (s: AbortSignal) => Promise<T>): Promise<T> => {
    const limitMs = stageLimitMs(stage, mediaSeconds, ctx.config.stageTimeouts);
    ctx.logger.debug({ stage, limit_ms: limitMs }, 'stage limit');
    return runWithinLimit({ stage, limitMs, signal, clock: ctx.clock }, run);
  };
}

/** What the shared transcription steps produce: the probe, the transcript, and how the Whisper pass went (completion stats). */
export interface TranscribedSource {
  media: MediaInfo;
  transcript: TranscriptV2;
  transcription: TranscriptionStats;
}

/**
 * The steps every transcript-producing job shares: source → probe → 16 kHz WAV → Whisper. The job
 * is already `extracting_audio` when claimed; `transcribing` is reported with the probe (the
 * coordinator checks it against what was paid for). The source is deleted once the WAV exists.
 */
export async function transcribeSource(dir: string, p: TranscribeSourceParams, signal: AbortSignal, ctx: PipelineContext): Promise<TranscribedSource> {
  const { config, progress, logger: log, clock } = ctx;
  const within = withinLimit(ctx, signal);
  const source = path.join(dir, 'source');
  const audio = path.join(dir, 'audio.wav');
  // Media by URL: the first half of extracting_audio's progress is the fetch (by bytes, when the server says how many).
  const fetched = p.source.fetch;
  const sourceBytes = fetched
    ? await fetchRemoteSource(fetched, source, signal, clock, config.sourceFetch, (received, total) =>
        progress.report('extracting_audio', total ? (0.5 * received) / total : 0),
      )
    : await downloadSource(p.source.get_url, source, p.source.size, signal, clock);
  log.info({ bytes: sourceBytes, fetched: Boolean(fetched) }, fetched ? 'source_url fetched and stored' : 'source downloaded');
  const base = fetched ? 0.5 : 0;
  progress.report('extracting_audio', base);
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
      onProgress: (f) => progress.report('extracting_audio', base + (1 - base) * f),
    }),
  );
  progress.report('extracting_audio', 1);
  progress.flush();
  // The source can be gigabytes; Whisper needs only the WAV from here on.
  await fs.rm(source, { force: true });

  await reportStage(ctx, 'transcribing', media, signal);
  progress.report('transcribing', 0);
  const model = p.model || config.whisper.model;
  const whisperStarted = clock.now();
  const transcript = await within('transcribe', media.duration_seconds, (s) =>
    transcribeWithWhisper({
      python: config.python,
      audioPath: audio,
      model,
      device: ctx.whisper.device,
      computeType: ctx.whisper.computeType,
      beamSize: config.whisper.beamSize,
      cpuThreads: config.whisper.cpuThreads,
      language: p.language,
      allowDownload: config.whisper.allowDownload,
      signal: s,
      logger: log,
      onSpawn: (pid) => log.debug({ pid }, 'whisper child started'),
      onProgress: (f) => progress.report('transcribing', f),
    }),
  );
  progress.flush();
  const transcription: TranscriptionStats = {
    model,
    device: ctx.whisper.device,
    compute_type: ctx.whisper.computeType,
    ...(ctx.whisper.device === 'cpu' && config.whisper.cpuThreads > 0 ? { cpu_threads: config.whisper.cpuThreads } : {}),
    media_seconds: media.duration_seconds,
    wall_seconds: elapsedSeconds(clock, whisperStarted),
  };
  log.info(
    { language: transcript.language, segments: transcript.segments.length, media_seconds: media.duration_seconds, whisper: transcription },
    'transcribed',
  );
  await fs.rm(audio, { force: true });
  return { media, transcript, transcription };
}
