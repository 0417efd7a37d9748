import type { CompleteRequest, SummarizeAssignment } from '@cutroom/proto';
import { summarizeContract } from '@cutroom/shared/contracts/summarize';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { configuredGenerator } from '../understanding/configured-generator.ts';
import { embeddingModelAvailable } from '../understanding/shared-embedder.ts';
import { summarize } from '../understanding/summarize.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { jsonBody, type OutputSources, type OutputWrites } from './output-writes.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { TRANSCRIPT_WRITES, transcriptSources } from './transcript-outputs.ts';
import { transcribeForAnalysis, uploadWithTranscript } from './understand-steps.ts';

const WRITES = { ...TRANSCRIPT_WRITES, summary: 'memory' } as const satisfies OutputWrites<'summarize'>;

/**
 * summarize: the upload is transcribed as for transcribe (extracting_audio → transcribing), then
 * `analyzing`: chapters over sentence embeddings, each written by the text model from its own
 * sentences, then the overview and key points from the chapters (understanding/summarize.ts),
 * every generated sentence checked against the transcript. Outputs: the transcript (free
 * byproduct) and `summary` (summary v1 JSON). It runs where find_clips runs (kind `understand`);
 * a host without a text model writes extractive summaries.
 */
export const summarizePipeline: Pipeline<'summarize'> = {
  kind: summarizeContract.workKind,
  writes: WRITES,
  missing: unmet(ffmpegRuns, fasterWhisperRuns, whisperModelAvailable, embeddingModelAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => summarizeInto(dir, a, signal, ctx)),
};

async function summarizeInto(dir: string, a: SummarizeAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const input = { source: a.source, language: a.params.language, model: a.params.model };
  const { media, transcript, transcription, embedder } = await transcribeForAnalysis(dir, a, input, WRITES, signal, ctx);
  ctx.progress.report('analyzing', 0, 'reading the transcript');
  const calls = ctx.config.llm.summaryCalls;
  const { generator, note } = calls > 0 ? await configuredGenerator(ctx.config.llm, ctx.logger) : { generator: null, note: null };
  const summary = await summarize({
    transcript,
    embedder,
    generator,
    maxCalls: calls,
    signal,
    onProgress: (fraction, message) => ctx.progress.report('analyzing', fraction, message),
    onError: (what, err) => ctx.logger.warn({ err, part: what }, 'text generation failed: extractive text kept'),
  });
  if (note) summary.notes.push(note);
  ctx.progress.flush();
  ctx.logger.info(
    {
      chapters: summary.chapters.length,
      key_points: summary.key_points.length,
      text_generator: summary.generator.text_generator,
      dropped: summary.generator.dropped.length,
      timings_ms: summary.generator.timings_ms,
    },
    'summary written',
  );

  const sources: OutputSources<typeof WRITES> = { ...transcriptSources(transcript), summary: () => jsonBody(summary) };
  const outputs = await uploadWithTranscript(a, sources, signal, ctx);
  return { ...ctx.fence, job_type: 'summarize', media, language: transcript.language, outputs, stats: { transcription } };
}
