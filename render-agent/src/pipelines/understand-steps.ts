import type { OutputTarget } from '@cutroom/proto';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { PipelineError } from '../errors.ts';
import type { Embedder } from '../understanding/embedder.ts';
import { sharedEmbedder } from '../understanding/shared-embedder.ts';
import { confirmStillHolding, reportStage } from './fenced-calls.ts';
import { uploadOutputs } from './http-transfer.ts';
import type { PipelineContext } from './pipeline.ts';
import { type TranscribedSource, type TranscribeSourceParams, transcribeSource } from './transcribe-steps.ts';
import { buildTranscriptOutputs } from './transcript-outputs.ts';

/**
 * What find_clips and summarize share around their analysis: the outputs check, the transcription
 * (transcribe-steps.ts), the move to `analyzing` with the embedding model loaded, and the upload
 * of the transcript beside the one JSON document the analysis wrote.
 */

/** The transcript files every understanding job writes beside its own document. */
const TRANSCRIPT_OUTPUTS = ['transcript_srt', 'transcript_words'] as const;

export interface Understood extends TranscribedSource {
  embedder: Embedder;
}

/**
 * Refuses, before any work, an assignment naming an output other than the transcript files and
 * `document`; then transcribes the source and reports `analyzing` with the embedder loaded.
 */
export async function transcribeForAnalysis(
  dir: string,
  a: { outputs: Readonly<Record<string, OutputTarget>> },
  input: TranscribeSourceParams,
  document: string,
  signal: AbortSignal,
  ctx: PipelineContext,
): Promise<Understood> {
  const unknown = Object.keys(a.outputs).find((name) => name !== document && !(TRANSCRIPT_OUTPUTS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new PipelineError('internal', `the assignment asks for an output this agent cannot produce: ${unknown}`);
  const transcribed = await transcribeSource(dir, input, signal, ctx);
  await reportStage(ctx, 'analyzing', undefined, signal);
  const embedder = await sharedEmbedder().catch((err: unknown) => {
    throw new PipelineError('tool_failed', `the sentence-embedding model could not be loaded: ${(err as Error).message}`, { cause: err });
  });
  return { ...transcribed, embedder };
}

/** Uploads the transcript files and the analysis' JSON document (named `document`), once the lease is confirmed. */
export async function uploadWithTranscript(
  a: { outputs: Readonly<Record<string, OutputTarget>> },
  transcript: TranscriptV2,
  document: { name: string; json: unknown },
  signal: AbortSignal,
  ctx: PipelineContext,
): Promise<{ name: string; bytes: number }[]> {
  const bodies: Record<string, Buffer> = { ...buildTranscriptOutputs(transcript), [document.name]: Buffer.from(JSON.stringify(document.json), 'utf8') };
  await confirmStillHolding(ctx, signal);
  const sources = Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, () => ({ body })]));
  return uploadOutputs(a.outputs, sources, signal, ctx.clock);
}
