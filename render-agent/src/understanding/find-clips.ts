import type { ClipTarget } from '@cutroom/shared/clips/clip-targets';
import { type ClipCandidate, type ClipTextSource, ClipsV1, type QueryMatch } from '@cutroom/shared/clips/clips-v1';
import { flattenWords, type Sentence, sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { lengthsLabel } from '@cutroom/shared/clips/clip-targets';
import { candidateSpans, keepDistinct, type Span, speechSeconds, topicIndexOf } from './candidates.ts';
import { type ChosenLengths, chooseLengths, lengthNotes, shortestClipFor } from './clip-lengths.ts';
import type { Embedder } from './embedder.ts';
import { type ExtractiveTexts, extractiveTexts } from './extractive.ts';
import { queryCandidates } from './query.ts';
import { type ScoreInput, type SpanScore, scoreSpan } from './score.ts';
import { type Segmentation, segmentTopics } from './segment.ts';
import { joinCoherentTopics, refineBoundaries } from './topic-edges.ts';
import { type UnsureWord, unsureWordsOf } from './unsure-words.ts';

/**
 * find_clips' analysis: transcript → sentences → embeddings → topics (their edges refined and
 * coherent neighbours joined, topic-edges.ts) → the lengths to search in
 * (the target's, clip-lengths.ts) → candidate spans inside topics → scores → texts, validated as
 * a ClipsV1 document. Transcription and the upload of the result belong to
 * the pipeline; a text model plugs in through `generate`.
 */

/** What `generate` is given for one candidate. */
export interface CandidateForText {
  id: string;
  /** 1 = best. */
  rank: number;
  start: number;
  end: number;
  /** The candidate's sentences, verbatim, in order (what a generated text must be grounded in). */
  sentences: string[];
  text: string;
  /** The extractive texts (the floor, and a hint for the model). */
  extractive: ExtractiveTexts;
  /** The query in query mode. */
  query: string | null;
  /** Content words of the candidate the recognizer was unsure of everywhere it heard them: a title or hook must not repeat them (unsure-words.ts). */
  unsure: readonly UnsureWord[];
}

/** A generated text the check against the transcript dropped, and why. */
export interface DroppedText {
  field: keyof ExtractiveTexts;
  text: string;
  reason: string;
}

/**
 * A generated text per field; a field that is null, absent or blank falls back to the extractive
 * one. `dropped` (what grounding refused) goes to `generator.dropped`, `notes` to the document's notes.
 */
export type GeneratedTexts = Partial<Record<keyof ExtractiveTexts, string | null>> & {
  dropped?: readonly DroppedText[];
  notes?: readonly string[];
};

export interface FindClipsOptions {
  transcript: TranscriptV2;
  embedder: Embedder;
  /** 1-500 characters (after trimming): query mode. Absent, null or blank: best mode. */
  query?: string | null;
  /** @default 10 */
  maxCandidates?: number;
  /** What the candidates are sized for (clip-targets.ts). Absent or null: the default, 2-5 minutes or the topics' own lengths. */
  target?: ClipTarget | null;
  /**
   * Title, hook and summary from a text model, already checked against the transcript (a field it
   * cannot support comes back null). Null or absent: the extractive texts. A throw fails the call:
   * a generator that wants to degrade instead returns null.
   */
  generate?: (candidate: CandidateForText) => Promise<GeneratedTexts | null>;
  /** Names the text model in the result. @default 'custom' when `generate` is given */
  generatorId?: string;
  /** Milliseconds clock for the phase timings. @default performance.now */
  now?: () => number;
  /** Checked between phases and before each candidate's texts (the attempt's abort reaches here). */
  signal?: AbortSignal;
}

export async function findClips(o: FindClipsOptions): Promise<ClipsV1> {
  const now = o.now ?? (() => performance.now());
  const t0 = now();
  const timings = { sentences: 0, embeddings: 0, segmentation: 0, candidates: 0, generation: 0, total: 0 };
  const query = o.query?.trim() ? o.query.trim() : null;
  // The request schema caps it already; checked again so a bad call fails before the work, not at the final parse.
  if (query && query.length > 500) throw new RangeError(`a find_clips query is 1-500 characters; this one has ${query.length}`);
  const cap = o.maxCandidates ?? 10;
  const target = o.target ?? null;
  const notes: string[] = [];
  const sentences = sentencesOf(o.transcript);
  const words = flattenWords(o.transcript);
  timings.sentences = now() - t0;

  const dropped: NonNullable<ClipsV1['generator']['dropped']> = [];
  const doc = (
    candidates: ClipCandidate[],
    lengths: { minSeconds: number; maxSeconds: number },
    usedGenerator: boolean,
    window: number,
    boundaries: number[],
  ): ClipsV1 => {
    timings.total = now() - t0;
    return ClipsV1.parse({
      version: 1,
      mode: query ? 'query' : 'best',
      query,
      target: { requested: target, min_seconds: lengths.minSeconds, max_seconds: lengths.maxSeconds },
      source: { duration: o.transcript.duration, language: o.transcript.language, sentences: sentences.length },
      generator: {
        embedder: o.embedder.id,
        text_generator: usedGenerator ? (o.generatorId ?? 'custom') : 'extractive',
        segmentation: { method: 'texttiling over sentence embeddings', window, boundaries },
        timings_ms: Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v * 10) / 10])),
        dropped,
      },
      notes,
      candidates,
    });
  };

  const speech = speechSeconds(sentences);
  const shortest = shortestClipFor(target);
  if (speech < shortest) {
    notes.push(
      `the recording is ${Math.round(o.transcript.duration)} s long with ${Math.round(speech)} s of speech: shorter than a ${shortest} s clip; no candidates`,
    );
    // No topics to weigh: the lengths a recording this short would have been searched in.
    return doc([], chooseLengths(target, sentences, []), false, 0, []);
  }

  o.signal?.throwIfAborted();
  let t = now();
  const embeddings = await o.embedder.embed(sentences.map((s) => s.text));
  const queryEmbedding = query ? (await o.embedder.embed([query]))[0]! : null;
  timings.embeddings = now() - t;

  o.signal?.throwIfAborted();
  t = now();
  // Boundaries on the sentence where the subject changes, and only where it changes: a candidate
  // starts on its own topic's first sentence at the earliest, and a topic is a whole subject.
  const seg = joinCoherentTopics(embeddings, refineBoundaries(embeddings, segmentTopics(embeddings, { times: sentences })));
  timings.segmentation = now() - t;

  t = now();
  const lengths = chooseLengths(target, sentences, seg.topics);
  notes.push(...lengthNotes(lengths, sentences, seg.topics));
  const picked = pickSpans({ sentences, words, embeddings }, seg, lengths, query, queryEmbedding, cap, notes);
  timings.candidates = now() - t;

  t = now();
  const input = { sentences, words, embeddings };
  let usedGenerator = false;
  const candidates: ClipCandidate[] = [];
  for (const [i, p] of picked.entries()) {
    o.signal?.throwIfAborted();
    const id = `c${i + 1}`;
    const extractive = extractiveTexts(input, p.span);
    const texts = await textsFor(o, input, p.span, { id, rank: i + 1, extractive, query });
    usedGenerator ||= Object.values(texts.source).includes('generated');
    dropped.push(...texts.dropped.map((d) => ({ candidate: id, ...d })));
    for (const note of texts.notes) if (!notes.includes(note)) notes.push(note);
    candidates.push(candidateOf(sentences, p, id, i + 1, texts));
  }
  timings.generation = now() - t;
  return doc(
    candidates,
    lengths,
    usedGenerator,
    seg.window,
    seg.boundaries.map((b) => sentences[b.sentence]!.start),
  );
}

type Picked = { span: Span; quality: SpanScore; match: QueryMatch | null };

/**
 * The candidates' spans, best first, at most `cap`: query mode, the moments matching the query
 * (each inside its peak's topic); best mode, the spans inside topics (candidates.ts) by score,
 * the best of every topic long enough first. Says in `notes` why there are fewer than `cap`.
 */
function pickSpans(
  input: ScoreInput,
  seg: Segmentation,
  lengths: ChosenLengths,
  query: string | null,
  queryEmbedding: Float32Array | null,
  cap: number,
  notes: string[],
): Picked[] {
  const { sentences, embeddings } = input;
  let picked: Picked[];
  if (query && queryEmbedding) {
    const hits = queryCandidates({ query, queryEmbedding, sentences, embeddings }, { depth: seg.depth, topics: seg.topics, ...lengths });
    const scored = hits.map((h) => ({ span: h.span, match: h.match, quality: scoreSpan(input, h.span) }));
    picked = keepDistinct(sentences, scored, (a, b) => b.match.score - a.match.score || b.quality.score - a.quality.score, { cap });
    if (picked.length === 0) notes.push('no part of the recording matches the query closely enough for a clip; no candidates');
  } else {
    const scored = candidateSpans(sentences, seg, lengths).map((span) => ({ span, match: null, quality: scoreSpan(input, span) }));
    picked = keepDistinct(sentences, scored, (a, b) => b.quality.score - a.quality.score || a.span.first - b.span.first, {
      cap,
      groupOf: (x) => topicIndexOf(seg.topics, x.span),
    });
    if (picked.length === 0) notes.push(`no stretch of whole sentences inside one topic fits a ${lengthsLabel(lengths)} clip; no candidates`);
  }
  if (picked.length > 0 && picked.length < cap) {
    notes.push(
      query
        ? `${picked.length} of up to ${cap} candidates: no other part of the recording matches the query as well`
        : `${picked.length} of up to ${cap} candidates: the other spans found inside the topics overlap these by more than half`,
    );
  }
  return picked;
}

interface ChosenTexts {
  texts: ExtractiveTexts;
  source: Record<keyof ExtractiveTexts, ClipTextSource>;
  dropped: readonly DroppedText[];
  notes: readonly string[];
}

async function textsFor(
  o: FindClipsOptions,
  { sentences, words }: Pick<ScoreInput, 'sentences' | 'words'>,
  span: Span,
  c: Pick<CandidateForText, 'id' | 'rank' | 'extractive' | 'query'>,
): Promise<ChosenTexts> {
  const own = sentences.slice(span.first, span.last + 1).map((s) => s.text);
  const generated = o.generate
    ? await o.generate({
        ...c,
        start: sentences[span.first]!.start,
        end: sentences[span.last]!.end,
        sentences: own,
        text: own.join(' '),
        unsure: unsureWordsOf(words.slice(sentences[span.first]!.firstWord, sentences[span.last]!.endWord)),
      })
    : null;
  const texts = { ...c.extractive };
  const source: ChosenTexts['source'] = { title: 'extractive', hook: 'extractive', summary: 'extractive' };
  for (const k of ['title', 'hook', 'summary'] as const) {
    const g = generated?.[k]?.trim();
    if (g) [texts[k], source[k]] = [g, 'generated'];
  }
  return { texts, source, dropped: generated?.dropped ?? [], notes: generated?.notes ?? [] };
}

function candidateOf(
  sentences: readonly Sentence[],
  p: { span: Span; quality: SpanScore; match: QueryMatch | null },
  id: string,
  rank: number,
  chosen: ChosenTexts,
): ClipCandidate {
  const start = sentences[p.span.first]!.start;
  const end = sentences[p.span.last]!.end;
  return {
    id,
    rank,
    start,
    end,
    duration: Math.round((end - start) * 1000) / 1000,
    first_sentence: p.span.first,
    last_sentence: p.span.last,
    ...chosen.texts,
    texts_source: chosen.source,
    text: sentences
      .slice(p.span.first, p.span.last + 1)
      .map((s) => s.text)
      .join(' '),
    score: p.quality.score,
    score_breakdown: { ...p.quality.components, weights: p.quality.weights },
    reason: p.quality.reason,
    match: p.match,
  };
}
