import type { CompleteRequest, TranscribeAssignment } from '@cutroom/proto';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { PipelineError } from '../errors.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { confirmStillHolding } from './fenced-calls.ts';
import { uploadOutput } from './http-transfer.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { transcribeSource } from './transcribe-steps.ts';
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
  // Each child runs under a wall-clock limit (stage-limit.ts): one that hangs is killed and the
  // attempt fails as stage_timeout, instead of its heartbeats keeping the lease forever.
  const { media, transcript, transcription } = await transcribeSource(
    dir,
    { source: a.source, language: a.params.language, model: a.params.model },
    signal,
    ctx,
  );
  const bodies = buildTranscriptOutputs(transcript);
  await confirmStillHolding(ctx, signal);
  const outputs: { name: string; bytes: number }[] = [];
  for (const [name, target] of Object.entries(a.outputs)) {
    if (!isTranscribeOutputName(name)) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${name}`);
    await uploadOutput(name, target, bodies[name], signal, ctx.clock);
    outputs.push({ name, bytes: bodies[name].byteLength });
  }
  return { ...ctx.fence, job_type: 'transcribe', media, language: transcript.language, outputs, stats: { transcription } };
}
