import type { OutputTarget } from '@cutroom/proto';
import { PipelineError } from '../errors.ts';
import type { Embedder } from '../understanding/embedder.ts';
import { sharedEmbedder } from '../understanding/shared-embedder.ts';
import { confirmStillHolding, reportStage } from './fenced-calls.ts';
import { uploadOutputs } from './http-transfer.ts';
import { type OutputMedium, type OutputSources, refuseUnknownOutputs } from './output-writes.ts';
import type { PipelineContext } from './pipeline.ts';
import { type TranscribedSource, type TranscribeSourceParams, transcribeSource } from './transcribe-steps.ts';

/**
 * What find_clips and summarize share around their analysis: the outputs check, the transcription
 * (transcribe-steps.ts), the move to `analyzing` with the embedding model loaded, and the upload
 * of the transcript beside the one JSON document the analysis wrote.
 */

export interface Understood extends TranscribedSource {
  embedder: Embedder;
}

/**
 * Refuses, before any work, an assignment naming an output the pipeline does not write (`writes`);
 * then transcribes the source and reports `analyzing` with the embedder loaded.
 */
export async function transcribeForAnalysis(
  dir: string,
  a: { outputs: Readonly<Record<string, OutputTarget>> },
  input: TranscribeSourceParams,
  writes: Readonly<Record<string, OutputMedium>>,
  signal: AbortSignal,
  ctx: PipelineContext,
): Promise<Understood> {
  refuseUnknownOutputs(a.outputs, writes);
  const transcribed = await transcribeSource(dir, input, signal, ctx);
  await reportStage(ctx, 'analyzing', undefined, signal);
  const embedder = await sharedEmbedder().catch((err: unknown) => {
    throw new PipelineError('tool_failed', `the sentence-embedding model could not be loaded: ${(err as Error).message}`, { cause: err });
  });
  return { ...transcribed, embedder };
}

/** Uploads the transcript files and the analysis' JSON document (`sources`), once the lease is confirmed. */
export async function uploadWithTranscript<W extends Readonly<Record<string, OutputMedium>>>(
  a: { outputs: Readonly<Record<string, OutputTarget>> },
  sources: OutputSources<W>,
  signal: AbortSignal,
  ctx: PipelineContext,
): Promise<{ name: string; bytes: number }[]> {
  await confirmStillHolding(ctx, signal);
  return uploadOutputs(a.outputs, sources, signal, ctx.clock);
}
