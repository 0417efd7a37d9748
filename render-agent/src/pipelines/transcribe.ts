import fs from 'node:fs/promises';
import path from 'node:path';
import { PROTOCOL_VERSION, type Assignment, type Fence, type MediaInfo } from '@cutroom/proto';
import type { WhisperRuntime } from '../capabilities/whisper-runtime.ts';
import type { AgentConfig } from '../config.ts';
import { TransientError, type CoordinatorClient } from '../coordinator-client.ts';
import { AttemptAbortedError, classifyFailure, PipelineError, StaleAttemptError } from '../errors.ts';
import { extractAudio } from '../executors/ffmpeg.ts';
import { assertTranscribable, probeMedia } from '../executors/probe.ts';
import { transcribeWithWhisper } from '../executors/whisper.ts';
import type { Logger } from '../logger.ts';
import type { ProgressPublisher } from '../progress/progress-publisher.ts';
import { downloadSource, uploadOutput } from './http-transfer.ts';
import { buildTranscriptOutputs, isTranscribeOutputName } from './transcript-outputs.ts';

export interface TranscribeDeps {
  config: AgentConfig;
  whisper: WhisperRuntime;
  client: Pick<CoordinatorClient, 'stage' | 'complete' | 'fail' | 'heartbeat'>;
  progress: ProgressPublisher;
  /** Already a child carrying job_id, attempt_id and agent_id. */
  logger: Logger;
}

/** How the attempt ended, from this agent's point of view. */
export type AttemptOutcome = 'completed' | 'failed' | 'aborted';

/**
 * One transcribe attempt, start to terminal report. The job is already `extracting_audio`
 * when claimed, so only `transcribing` is reported as a stage. Any failure becomes `fail` with
 * a classified code; an abort (cancel, stale attempt, shutdown) stops quietly, because the
 * coordinator already knows or will find out from the lease.
 */
export async function runTranscribeAttempt(a: Assignment, signal: AbortSignal, deps: TranscribeDeps): Promise<AttemptOutcome> {
  const fence: Fence = { v: PROTOCOL_VERSION, job_id: a.job_id, attempt_id: a.attempt_id, agent_id: deps.config.agentId };
  const dir = path.join(deps.config.workDir, a.attempt_id);
  const log = deps.logger;
  const started = Date.now();
  try {
    await fs.mkdir(dir, { recursive: true });
    const { media, language, outputs } = await transcribeInto(dir, a, signal, deps, fence);
    await deps.client.complete({ ...fence, media, language, outputs }, signal);
    log.info({ duration_ms: Date.now() - started, media_seconds: media.duration_seconds, outputs }, 'attempt completed');
    return 'completed';
  } catch (err) {
    if (isAbort(err, signal)) {
      log.info({ reason: describe(signal.reason ?? err) }, 'attempt stopped without reporting');
      return 'aborted';
    }
    const { code, message } = classifyFailure(err);
    log.warn({ code, err: message, duration_ms: Date.now() - started }, 'attempt failed');
    try {
      await deps.client.fail({ ...fence, code, message }, signal);
    } catch (reportErr) {
      if (isAbort(reportErr, signal)) return 'aborted';
      throw reportErr;
    }
    return 'failed';
  } finally {
    deps.progress.close();
    await fs.rm(dir, { recursive: true, force: true }).catch((err: Error) => log.error({ err: err.message, dir }, 'could not remove the work folder'));
  }
}

async function transcribeInto(dir: string, a: Assignment, signal: AbortSignal, deps: TranscribeDeps, fence: Fence) {
  const { config, progress, logger: log } = deps;
  const source = path.join(dir, 'source');
  const audio = path.join(dir, 'audio.wav');

  const sourceBytes = await downloadSource(a.source.get_url, source, a.source.size, signal);
  log.info({ bytes: sourceBytes }, 'source downloaded');
  progress.report('extracting_audio', 0);
  const media: MediaInfo = await probeMedia(config.ffprobePath, source, signal);
  assertTranscribable(media);
  log.info({ media }, 'source probed');
  await extractAudio({
    ffmpegPath: config.ffmpegPath, input: source, output: audio, durationSeconds: media.duration_seconds, signal,
    onProgress: (f) => progress.report('extracting_audio', f),
  });
  progress.report('extracting_audio', 1);
  progress.flush();
  // The source can be gigabytes; Whisper needs only the WAV from here on.
  await fs.rm(source, { force: true });

  // The probe travels with the stage report: the coordinator checks it against what was paid for.
  await reportStage(deps, fence, media, signal);
  progress.report('transcribing', 0);
  const transcript = await transcribeWithWhisper({
    python: config.python, audioPath: audio, model: a.params.model || config.whisper.model,
    device: deps.whisper.device, computeType: deps.whisper.computeType, beamSize: config.whisper.beamSize,
    language: a.params.language, allowDownload: config.whisper.allowDownload, signal, logger: log,
    onSpawn: (pid) => log.debug({ pid }, 'whisper child started'),
    onProgress: (f) => progress.report('transcribing', f),
  });
  progress.flush();
  log.info({ language: transcript.language, segments: transcript.segments.length }, 'transcribed');

  const bodies = buildTranscriptOutputs(transcript);
  await confirmStillHolding(deps, fence, signal);
  const outputs: { name: string; bytes: number }[] = [];
  for (const [name, target] of Object.entries(a.outputs)) {
    if (!isTranscribeOutputName(name)) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${name}`);
    await uploadOutput(name, target, bodies[name], signal);
    outputs.push({ name, bytes: bodies[name].byteLength });
  }
  return { media, language: transcript.language, outputs };
}

/**
 * Output keys are shared by every attempt of a job, so an attempt that lost its lease (a paused
 * process, a partition) must not upload over the outputs of the attempt that replaced it. A fresh
 * fenced heartbeat right before the upload narrows that window to the upload itself; anything but
 * a 2xx means walk away (a 409 surfaces as StaleAttemptError and stops the attempt).
 */
async function confirmStillHolding(deps: TranscribeDeps, fence: Fence, signal: AbortSignal): Promise<void> {
  try {
    await deps.client.heartbeat(fence, signal);
  } catch (err) {
    if (err instanceof TransientError) throw new AttemptAbortedError('unreachable', `could not confirm the lease before uploading: ${err.message}`);
    throw err;
  }
}

async function reportStage(deps: TranscribeDeps, fence: Fence, media: MediaInfo, signal: AbortSignal): Promise<void> {
  try {
    await deps.client.stage({ ...fence, stage: 'transcribing', media }, signal);
  } catch (err) {
    // Failing the job here would refund a caller over our infrastructure's hiccup; walking
    // away lets the lease expire and the sweeper give the job to a fresh attempt.
    if (err instanceof TransientError) throw new AttemptAbortedError('unreachable', `the coordinator did not take the stage report: ${err.message}`);
    throw err;
  }
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof AttemptAbortedError || err instanceof StaleAttemptError;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
}
