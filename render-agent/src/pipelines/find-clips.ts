import type { CompleteRequest, FindClipsAssignment } from '@cutroom/proto';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { PipelineError } from '../errors.ts';
import { findClips } from '../understanding/find-clips.ts';
import { embeddingModelAvailable, sharedEmbedder } from '../understanding/shared-embedder.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { confirmStillHolding, reportStage } from './fenced-calls.ts';
import { uploadOutput } from './http-transfer.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { transcribeSource } from './transcribe-steps.ts';
import { buildTranscriptOutputs } from './transcript-outputs.ts';

/**
 * find_clips: the upload is transcribed exactly as for transcribe (extracting_audio →
 * transcribing), then `analyzing`: sentences, embeddings, topic segmentation, 120-300 s
 * sentence-snapped candidates with scores, titles, hooks and summaries (understanding/find-clips.ts).
 * Outputs: the transcript (free byproduct) and `clips` (clips v1 JSON).
 */
export const findClipsPipeline: Pipeline<'find_clips'> = {
  kind: 'understand',
  missing: unmet(ffmpegRuns, fasterWhisperRuns, whisperModelAvailable, embeddingModelAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => findClipsInto(dir, a, signal, ctx)),
};

const OUTPUT_NAMES = ['transcript_srt', 'transcript_words', 'clips'] as const;
type OutputName = (typeof OUTPUT_NAMES)[number];
const isOutputName = (name: string): name is OutputName => (OUTPUT_NAMES as readonly string[]).includes(name);

async function findClipsInto(dir: string, a: FindClipsAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const unknown = Object.keys(a.outputs).find((name) => !isOutputName(name));
  if (unknown !== undefined) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${unknown}`);
  const { media, transcript } = await transcribeSource(dir, { source: a.source, language: a.params.language, model: a.params.model }, signal, ctx);

  await reportStage(ctx, 'analyzing', undefined, signal);
  ctx.progress.report('analyzing', 0, 'finding the moments');
  const embedder = await sharedEmbedder().catch((err: unknown) => {
    throw new PipelineError('tool_failed', `the sentence-embedding model could not be loaded: ${(err as Error).message}`, { cause: err });
  });
  const clips = await findClips({ transcript, embedder, query: a.params.query, signal });
  ctx.progress.report('analyzing', 1);
  ctx.progress.flush();
  ctx.logger.info({ candidates: clips.candidates.length, mode: clips.mode, timings_ms: clips.generator.timings_ms }, 'clips found');

  const bodies: Record<OutputName, Buffer> = { ...buildTranscriptOutputs(transcript), clips: Buffer.from(JSON.stringify(clips), 'utf8') };
  await confirmStillHolding(ctx, signal);
  const outputs: { name: string; bytes: number }[] = [];
  for (const [name, target] of Object.entries(a.outputs)) {
    if (!isOutputName(name)) continue;
    await uploadOutput(name, target, bodies[name], signal, ctx.clock);
    outputs.push({ name, bytes: bodies[name].byteLength });
  }
  return { ...ctx.fence, job_type: 'find_clips', media, language: transcript.language, candidates: clips.candidates.length, outputs };
}
