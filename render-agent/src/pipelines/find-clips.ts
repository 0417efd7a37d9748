import type { CompleteRequest, FindClipsAssignment } from '@cutroom/proto';
import { findClipsContract } from '@cutroom/shared/contracts/find-clips';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable } from '../capabilities/requirements.ts';
import { candidateTexts } from '../understanding/candidate-texts.ts';
import { configuredGenerator } from '../understanding/configured-generator.ts';
import { findClips } from '../understanding/find-clips.ts';
import { embeddingModelAvailable } from '../understanding/shared-embedder.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { jsonBody, type OutputSources, type OutputWrites } from './output-writes.ts';
import type { Pipeline, PipelineContext } from './pipeline.ts';
import { TRANSCRIPT_WRITES, transcriptSources } from './transcript-outputs.ts';
import { transcribeForAnalysis, uploadWithTranscript } from './understand-steps.ts';

const WRITES = { ...TRANSCRIPT_WRITES, clips: 'memory' } as const satisfies OutputWrites<'find_clips'>;

/**
 * find_clips: the upload is transcribed exactly as for transcribe (extracting_audio →
 * transcribing), then `analyzing`: sentences, embeddings, topic segmentation, sentence-snapped
 * candidates inside topics, sized by the assignment's `target` (2-5 minutes without one), with
 * scores, titles, hooks and summaries (understanding/find-clips.ts).
 * The best LLM_CANDIDATES candidates get their texts from the text model, checked against their
 * own sentences (understanding/candidate-texts.ts). Outputs: the transcript (free byproduct) and
 * `clips` (clips v1 JSON).
 */
export const findClipsPipeline: Pipeline<'find_clips'> = {
  kind: findClipsContract.workKind,
  writes: WRITES,
  missing: unmet(ffmpegRuns, fasterWhisperRuns, whisperModelAvailable, embeddingModelAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => findClipsInto(dir, a, signal, ctx)),
};

async function findClipsInto(dir: string, a: FindClipsAssignment, signal: AbortSignal, ctx: PipelineContext): Promise<CompleteRequest> {
  const input = { source: a.source, language: a.params.language, model: a.params.model };
  const { media, transcript, transcription, embedder } = await transcribeForAnalysis(dir, a, input, WRITES, signal, ctx);
  ctx.progress.report('analyzing', 0, 'finding the moments');
  const top = ctx.config.llm.candidates;
  const { generator, note } = top > 0 ? await configuredGenerator(ctx.config.llm, ctx.logger) : { generator: null, note: null };
  const generate = generator
    ? candidateTexts({
        generator,
        embedder,
        top,
        language: transcript.language,
        signal,
        onError: (c, err) => ctx.logger.warn({ err, candidate: c.id }, 'text generation failed for a candidate: extractive texts kept'),
        onDone: (done, of) => ctx.progress.report('analyzing', 0.2 + (0.8 * done) / of, `writing titles and summaries (${done} of ${of})`),
      })
    : null;
  if (generate) ctx.progress.report('analyzing', 0.1, 'writing titles and summaries');
  const clips = await findClips({
    transcript,
    embedder,
    query: a.params.query,
    target: a.params.target ?? null,
    signal,
    ...(generate && generator ? { generate, generatorId: generator.id } : {}),
  });
  if (note) clips.notes.push(note);
  ctx.progress.report('analyzing', 1);
  ctx.progress.flush();
  ctx.logger.info(
    {
      candidates: clips.candidates.length,
      mode: clips.mode,
      text_generator: clips.generator.text_generator,
      dropped: clips.generator.dropped?.length ?? 0,
      timings_ms: clips.generator.timings_ms,
    },
    'clips found',
  );

  const sources: OutputSources<typeof WRITES> = { ...transcriptSources(transcript), clips: () => jsonBody(clips) };
  const outputs = await uploadWithTranscript(a, sources, signal, ctx);
  return {
    ...ctx.fence,
    job_type: 'find_clips',
    media,
    language: transcript.language,
    candidates: clips.candidates.length,
    outputs,
    stats: { transcription },
  };
}
