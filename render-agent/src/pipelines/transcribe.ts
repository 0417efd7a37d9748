import type { CompleteRequest, TranscribeAssignment } from '@cutroom/proto';
import { transcribeContract } from '@cutroom/shared/contracts/transcribe';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { confirmStillHolding } from './fenced-calls.ts';
import { uploadOutputs } from './http-transfer.ts';
import type { OutputWrites } from './output-writes.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { transcribeSource } from './transcribe-steps.ts';
import { TRANSCRIPT_WRITES, transcriptSources } from './transcript-outputs.ts';

const WRITES = TRANSCRIPT_WRITES satisfies OutputWrites<'transcribe'>;

/**
 * transcribe: source → probe → 16 kHz WAV → Whisper → transcript outputs. The job is already
 * `extracting_audio` when claimed, so only `transcribing` is reported as a stage.
 */
export const transcribePipeline: Pipeline<'transcribe'> = {
  kind: transcribeContract.workKind,
  writes: WRITES,
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
  const sources = transcriptSources(transcript);
  await confirmStillHolding(ctx, signal);
  // An output this agent cannot write is refused (internal) when its turn comes, after the ones before it.
  const outputs = await uploadOutputs(a.outputs, sources, signal, ctx.clock);
  return { ...ctx.fence, job_type: 'transcribe', media, language: transcript.language, outputs, stats: { transcription } };
}
