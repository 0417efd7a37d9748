import { flattenWords, type Sentence, sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { type Chapter, type KeyPoint, SummaryV1, type SummaryTextSource } from '@cutroom/shared/summary/summary-v1';
import { summaryLineEnd } from './answer-stop.ts';
import type { Span } from './candidates.ts';
import { cosine, type Embedder } from './embedder.ts';
import { extractiveSummary, extractiveTexts } from './extractive.ts';
import { withoutDanglingOpenings } from './dangling.ts';
import { groundText, groundTitle, indexTranscript, splitSentences } from './grounding.ts';
import { CUT_OFF_REASON, capChars, keyCharsFor, leadingSentencesWithin, withoutCutOff } from './prompt-budget.ts';
import { segmentTopics } from './segment.ts';
import { batchAnswerPrefix, batches, batchMaxTokens, batchPrompt, keySentences, parseBatch, SYSTEM } from './summary-texts.ts';
import type { TextGenerator } from './text-generator.ts';
import { type UnsureWord, unsureWordsOf, unsureWordsReason } from './unsure-words.ts';
import { meanDirection } from './vectors.ts';

/**
 * summarize's analysis: transcript → sentences → embeddings → topic chapters → a summary v1
 * document. Recordings are summarized by parts, then as a whole: each chapter is written from
 * its own key sentences (one model request each, bounded by prompt-budget.ts), and the overview
 * and key points are composed from the chapters' summaries, so no request ever needs more than
 * the model's context and every part of the recording reaches the overview. Every generated
 * sentence is checked against the transcript (grounding.ts: against its chapter); what fails is
 * dropped and recorded, and the extractive texts (central sentences chosen by embeddings) fill
 * in, so a recording with speech never gets an empty summary.
 */

export interface SummarizeOptions {
  transcript: TranscriptV2;
  embedder: Embedder;
  /** The text model; null or absent: extractive texts only. */
  generator?: TextGenerator | null;
  /** Most model requests (batches of chapters, in time order). @default DEFAULT_MAX_CALLS */
  maxCalls?: number;
  /** Checked between phases and passed to every request; an abort is thrown, never a fallback. */
  signal?: AbortSignal;
  /** Told as the analysis advances (0..1). */
  onProgress?: (fraction: number, message: string) => void;
  /** Told of a request that failed; its texts stay extractive and the summary goes on. */
  onError?: (what: string, err: Error) => void;
  /** Milliseconds clock for the timings. @default performance.now */
  now?: () => number;
}

export const DEFAULT_MAX_CALLS = 12;
/** Most chapters: beyond it the most alike neighbours are merged (a chapter list is for skimming). */
export const MAX_CHAPTERS = 20;
/** A chapter shorter than this joins its closer neighbour. */
export const MIN_CHAPTER_SECONDS = 45;
/** Key points asked for and kept. */
export const KEY_POINTS = { min: 3, max: 8 } as const;
/** Longest generated chapter summary read, characters (the schema's bound). */
const SUMMARY_MAX_CHARS = 320;
/** Most overview sentences: one a chapter, the longest chapters when there are more (overviewLeads). */
export const OVERVIEW_MAX_SENTENCES = 5;
/** Fewest overview sentences: central transcript sentences fill a recording of one or two chapters (composeOverview). */
export const OVERVIEW_MIN_SENTENCES = 3;
/**
 * A filling sentence at least this close to a chapter sentence says the same thing again (a
 * generated summary paraphrases the central sentences it was shown). MiniLM cosine.
 */
const OVERVIEW_REPEAT_COSINE = 0.65;
/** Chapter summary sentences kept. */
const CHAPTER_SUMMARY_MAX_SENTENCES = 3;
/**
 * Least cosine between a chapter's generated title or summary sentence and the chapter's centroid.
 * Grounding asks only whether the chapter says it; a chapter that starts a sentence or two early
 * or late holds a few sentences of its neighbour, and the model sometimes writes about those.
 * Measured with MiniLM on the five-topic talk: on-subject titles and sentences mostly 0.55-0.75
 * (a vague one, "Orientation matters a great deal.", 0.18), a neighbour's 0.19-0.28.
 */
export const ON_SUBJECT_COSINE = 0.35;
/** Longest generated chapter title, words. */
const TITLE_MAX_WORDS = 12;
/** Schema caps (summary-v1.ts). */
const CAP = { title: 120, chapterSummary: 1200, keyPoint: 400, overview: 2000 } as const;

type Dropped = SummaryV1['generator']['dropped'][number];

export async function summarize(o: SummarizeOptions): Promise<SummaryV1> {
  const now = o.now ?? (() => performance.now());
  const t0 = now();
  const timings: Record<string, number> = { sentences: 0, embeddings: 0, segmentation: 0, chapters: 0, overview: 0, total: 0 };
  const progress = o.onProgress ?? (() => {});
  const notes: string[] = [];
  const dropped: Dropped[] = [];
  const sentences = sentencesOf(o.transcript);
  timings.sentences = now() - t0;
  const language = o.transcript.language;
  let usedGenerator = false;

  const doc = (d: Pick<SummaryV1, 'overview' | 'overview_source' | 'key_points' | 'chapters'>): SummaryV1 => {
    timings.total = now() - t0;
    return SummaryV1.parse({
      version: 1,
      source: { duration: o.transcript.duration, language, sentences: sentences.length },
      generator: {
        embedder: o.embedder.id,
        text_generator: usedGenerator && o.generator ? o.generator.id : 'extractive',
        parts: d.chapters.length,
        dropped,
        timings_ms: Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v * 10) / 10])),
      },
      ...d,
      notes,
    });
  };

  if (sentences.length === 0) {
    notes.push('no speech was found in the recording: there is nothing to summarize');
    return doc({ overview: '', overview_source: 'extractive', key_points: [], chapters: [] });
  }

  o.signal?.throwIfAborted();
  let t = now();
  const texts = sentences.map((s) => s.text);
  const embeddings = await o.embedder.embed(texts);
  timings.embeddings = now() - t;
  progress(0.05, 'finding the chapters');

  t = now();
  const seg = segmentTopics(embeddings, { times: sentences });
  const spans = mergeChapters(seg.topics, sentences, embeddings);
  timings.segmentation = now() - t;

  // The floor for every chapter, written before any request.
  const input = { sentences, embeddings };
  const chapters: Chapter[] = spans.map((span, i) => {
    const ex = extractiveTexts(input, span);
    return {
      index: i + 1,
      start: i === 0 ? 0 : sentences[span.first]!.start,
      end: i + 1 < spans.length ? sentences[spans[i + 1]!.first]!.start : Math.max(o.transcript.duration, sentences[span.last]!.end),
      first_sentence: span.first,
      last_sentence: span.last,
      // A label, not a summary: only for a chapter whose words yield no phrase (e.g. all numbers).
      title: capChars(ex.title, CAP.title) || `Part ${i + 1}`,
      title_source: 'extractive',
      summary: capChars(wholeSentencesWithin(ex.summary, CAP.chapterSummary), CAP.chapterSummary),
      summary_source: 'extractive',
    };
  });

  const maxCalls = Math.max(0, o.maxCalls ?? DEFAULT_MAX_CALLS);
  const generator = maxCalls > 0 ? (o.generator ?? null) : null;
  const groups = batches(chapters);
  // One request per batch of chapters, in time order; a budget too small for all keeps the first.
  const batchCalls = generator ? Math.min(groups.length, maxCalls) : 0;
  const keyPoints: KeyPoint[] = [];
  const expected = groups.slice(0, batchCalls).reduce((n, g) => n + batchMaxTokens(g.length) / 2, 0) || 1;
  let written = 0;
  const onTokens = (n: number) => progress(0.1 + 0.8 * Math.min(1, (written + n) / expected), 'writing the summary');

  t = now();
  const words = flattenWords(o.transcript);
  const unsure = new Map(
    chapters.map((ch) => [ch.index, unsureWordsOf(words.slice(sentences[ch.first_sentence]!.firstWord, sentences[ch.last_sentence]!.endWord))]),
  );
  for (const group of groups.slice(0, batchCalls)) {
    o.signal?.throwIfAborted();
    progress(
      0.1 + 0.8 * Math.min(1, written / expected),
      `writing ${group.length === 1 ? `chapter ${group[0]!.index}` : `chapters ${group[0]!.index}-${group.at(-1)!.index}`} of ${chapters.length}`,
    );
    const parts = group.map((ch) => ({
      index: ch.index,
      unsure: (unsure.get(ch.index) ?? []).map((u) => u.word),
      key: keySentences(sentences, embeddings, { first: ch.first_sentence, last: ch.last_sentence }, keyCharsFor(language)),
    }));
    const what =
      groups.length === 1 && chapters.length > 1
        ? 'the summary'
        : group.length === 1
          ? `chapter ${group[0]!.index}`
          : `chapters ${group[0]!.index}-${group.at(-1)!.index}`;
    let tokens = 0;
    const answer = await request(o, what, notes, {
      system: SYSTEM,
      prompt: batchPrompt(parts, { total: chapters.length }),
      maxTokens: batchMaxTokens(group.length),
      responsePrefix: batchAnswerPrefix(parts),
      // The last chapter's one summary sentence ends the answer (a small model writes on to the token cap).
      stopAfter: summaryLineEnd(`Summary ${group.at(-1)!.index}`),
      onTokens: (n) => {
        tokens = n;
        onTokens(n);
      },
    });
    written += tokens;
    if (answer === null) continue;
    const draft = parseBatch(
      answer,
      parts.map((p) => p.index),
    );
    if (draft.parts.every((p) => !p.title && !p.summary)) notes.push(`the text model's answer for ${what} could not be read: its text is extractive`);
    for (const [i, ch] of group.entries()) {
      const kept = await writeChapter(ch, draft.parts[i]!, { o, unsure, sentences, texts, embeddings, dropped });
      if (kept.title || kept.summary) usedGenerator = true;
      if (kept.keyPoint) keyPoints.push(kept.keyPoint);
    }
  }
  if (generator && batchCalls < groups.length) {
    const from = groups[batchCalls]![0]!.index;
    const which = from === chapters.length ? `chapter ${from} keeps` : `chapters ${from}-${chapters.length} keep`;
    notes.push(`${which} extractive titles and summaries: the text-model request budget (${maxCalls}) was spent`);
  }
  timings.chapters = now() - t;

  // The whole, from the parts: no request of its own (see overviewLeads).
  t = now();
  o.signal?.throwIfAborted();
  // A lead that is a transcript sentence (an extractive summary's) is placed at that sentence.
  const startOf = new Map(sentences.map((x) => [x.text, x.start]));
  const leads = overviewLeads(chapters).map((l) => ({ ...l, start: startOf.get(l.text) ?? l.start }));
  let fill: OverviewSentence[] = [];
  if (leads.length < OVERVIEW_MIN_SENTENCES) {
    // The course of the recording: the most central sentence of each third of it, unlike the
    // leads, those farthest from the leads first (a chapter can hold several short items, and its
    // summary speaks of one).
    const leadVectors = await o.embedder.embed(leads.map((l) => l.text));
    const distance = (t: number) => Math.min(...leads.map((l) => Math.abs(l.start - t)), Number.POSITIVE_INFINITY);
    fill = timeSlices(sentences, OVERVIEW_MIN_SENTENCES)
      .flatMap((slice) => extractiveSummary(sentences, embeddings, 1, { parts: [slice] }).sentences)
      .filter((s) => leadVectors.every((v) => cosine(v, embeddings[s.index]!) < OVERVIEW_REPEAT_COSINE))
      .sort((a, b) => distance(b.start) - distance(a.start))
      .map((s) => ({ text: s.text, start: s.start, source: 'extractive' as const }));
  }
  const { text: overview, source: overviewSource } = composeOverview(leads, fill);
  const keyTarget = Math.min(sentences.length, Math.max(KEY_POINTS.min, Math.min(KEY_POINTS.max, chapters.length + 1)));
  if (keyPoints.length < Math.min(KEY_POINTS.min, keyTarget)) {
    if (generator)
      notes.push(`fewer than ${KEY_POINTS.min} generated key points survived the check against the transcript: key sentences of the recording fill in`);
    for (const s of extractiveSummary(sentences, embeddings, keyTarget, { parts: spans }).sentences) {
      if (keyPoints.length >= keyTarget) break;
      if (keyPoints.some((k) => k.evidence.first_sentence <= s.index && s.index <= k.evidence.last_sentence)) continue;
      keyPoints.push({
        text: capChars(s.text, CAP.keyPoint),
        source: 'extractive',
        evidence: { first_sentence: s.index, last_sentence: s.index, start: s.start, end: s.end },
      });
    }
  }
  // Every chapter is represented: one the key points miss gives its most central sentence, the
  // longest chapters first, while there is room (a small model tends to draw all its points from
  // the first parts).
  const missed = spans
    .map((span, i) => ({ span, i }))
    .filter(({ span }) => !keyPoints.some((k) => k.evidence.first_sentence <= span.last && k.evidence.last_sentence >= span.first))
    .sort((a, b) => sentences[b.span.last]!.end - sentences[b.span.first]!.start - (sentences[a.span.last]!.end - sentences[a.span.first]!.start));
  const filled: number[] = [];
  for (const { span, i } of missed) {
    if (keyPoints.length >= KEY_POINTS.max) break;
    const s = extractiveSummary(sentences, embeddings, 1, { parts: [span] }).sentences[0];
    if (!s) continue;
    keyPoints.push({
      text: capChars(s.text, CAP.keyPoint),
      source: 'extractive',
      evidence: { first_sentence: s.index, last_sentence: s.index, start: s.start, end: s.end },
    });
    filled.push(i + 1);
  }
  if (filled.length > 0 && keyPoints.some((k) => k.source === 'generated')) {
    notes.push(
      `no generated key point covered chapter${filled.length > 1 ? 's' : ''} ${filled.sort((a, b) => a - b).join(', ')}: the key sentence of each is a key point`,
    );
  }
  keyPoints.sort((a, b) => a.evidence.start - b.evidence.start || a.evidence.end - b.evidence.end);
  timings.overview = now() - t;
  progress(1, 'summary written');
  return doc({ overview, overview_source: overviewSource, key_points: keyPoints, chapters });
}

/** One sentence of the overview, placed by time. */
export interface OverviewSentence {
  text: string;
  /** Seconds: where its chapter (or sentence) starts. */
  start: number;
  source: SummaryTextSource;
}

/**
 * The overview's chapter sentences: the lead sentence of each chapter's summary (the longest
 * OVERVIEW_MAX_SENTENCES chapters when there are more), a one-chapter recording's whole summary.
 * Pure. Asked to write an overview itself, the 1.5B model wrote about the first two of five parts
 * on the tests' talk, and on the evaluation's moon landing joined names from different parts
 * into a false claim ("Neil Armstrong and Michael Collins were the first humans to land on the
 * moon"); composed from the chapters, every part reaches the overview through a sentence already
 * checked against that part, and it costs no request.
 */
export function overviewLeads(chapters: readonly Pick<Chapter, 'start' | 'end' | 'summary' | 'summary_source'>[]): OverviewSentence[] {
  if (chapters.length === 1) {
    const [only] = chapters;
    return splitSentences(only!.summary).map((text) => ({ text, start: only!.start, source: only!.summary_source }));
  }
  return chapters
    .map((c, i) => ({ c, i, text: splitSentences(c.summary)[0] ?? '' }))
    .filter((x) => x.text)
    .sort((a, b) => b.c.end - b.c.start - (a.c.end - a.c.start) || a.i - b.i)
    .slice(0, OVERVIEW_MAX_SENTENCES)
    .sort((a, b) => a.i - b.i)
    .map((x) => ({ text: x.text, start: x.c.start, source: x.c.summary_source }));
}

/**
 * The overview from its chapter sentences and, when they are fewer than OVERVIEW_MIN_SENTENCES
 * (a recording of one or two chapters, where topics under ~30 s merge), transcript sentences
 * (`fill`, in the order given: the most central of each third of the recording, unlike the leads,
 * farthest from them first) up to that many, all in time order, each sentence once. `generated`
 * when at least one sentence was written by the text model.
 */
export function composeOverview(leads: readonly OverviewSentence[], fill: readonly OverviewSentence[] = []): { text: string; source: SummaryTextSource } {
  const chosen = [...leads];
  for (const f of fill) {
    if (chosen.length >= OVERVIEW_MIN_SENTENCES) break;
    if (!chosen.some((c) => c.text === f.text)) chosen.push(f);
  }
  const seen = new Set<string>();
  const text = chosen
    .map((c, i) => ({ c, i }))
    .sort((a, b) => a.c.start - b.c.start || a.i - b.i)
    .map(({ c }) => c.text)
    .filter((t) => !seen.has(t) && seen.add(t));
  return { text: capChars(text.join(' '), CAP.overview), source: chosen.some((c) => c.source === 'generated') ? 'generated' : 'extractive' };
}

/** `sentences` in `n` spans of about equal duration, in time order, none empty (fewer when there are fewer sentences). Pure. */
export function timeSlices(sentences: readonly { start: number; end: number }[], n: number): Span[] {
  if (sentences.length === 0) return [];
  const t0 = sentences[0]!.start;
  const length = Math.max(1e-9, sentences.at(-1)!.end - t0);
  const slices: (Span & { k: number })[] = [];
  for (const [i, s] of sentences.entries()) {
    const k = Math.min(n - 1, Math.floor(((s.start + s.end) / 2 - t0) / (length / n)));
    const last = slices.at(-1);
    if (last?.k === k) last.last = i;
    else slices.push({ first: i, last: i, k });
  }
  return slices.map(({ first, last }) => ({ first, last }));
}

/** `text` without an unfinished last sentence, which is recorded as dropped. */
function finished(text: string, maxLength: number, what: string, dropped: Dropped[]): string {
  const f = withoutCutOff(text, maxLength);
  if (f.cut) dropped.push({ text: f.cut, reason: `${what}: ${CUT_OFF_REASON}` });
  return f.text;
}

interface ChapterContext {
  o: SummarizeOptions;
  /** Words the recognizer was unsure of, per chapter index (a title must not repeat them). */
  unsure: ReadonlyMap<number, readonly UnsureWord[]>;
  sentences: readonly Sentence[];
  texts: readonly string[];
  embeddings: readonly Float32Array[];
  dropped: Dropped[];
}

/**
 * A chapter's generated title and summary, each kept only when grounded in the chapter (the
 * summary judged sentence by sentence against its windows and, for what sums up the chapter,
 * against the chapter as a whole) and on its subject; sentences left referring to a dropped one
 * are mended or dropped (dangling.ts). The first kept summary sentence is the chapter's key point.
 */
async function writeChapter(
  ch: Chapter,
  draft: { title: string; summary: string },
  c: ChapterContext,
): Promise<{ title: boolean; summary: boolean; keyPoint: KeyPoint | null }> {
  const own = c.texts.slice(ch.first_sentence, ch.last_sentence + 1);
  const index = await indexTranscript(own, c.o.embedder);
  const onSubject = onSubjectOf(c.o.embedder, meanDirection(c.embeddings, ch.first_sentence, ch.last_sentence + 1));
  const out = { title: false, summary: false, keyPoint: null as KeyPoint | null };
  const title = cleanTitle(draft.title);
  if (title) {
    const unsure = unsureWordsReason(title, c.unsure.get(ch.index) ?? []);
    const g =
      title.split(/\s+/).length > TITLE_MAX_WORDS
        ? { isGrounded: false, reason: `longer than ${TITLE_MAX_WORDS} words` }
        : unsure
          ? { isGrounded: false, reason: unsure }
          : await onSubject(title, await groundTitle(title, index, c.o.embedder));
    if (g.isGrounded) [ch.title, ch.title_source, out.title] = [capChars(title, CAP.title), 'generated', true];
    else c.dropped.push({ text: title, reason: `chapter ${ch.index} title: ${g.reason}` });
  }
  const text = finished(draft.summary, SUMMARY_MAX_CHARS, `chapter ${ch.index} summary`, c.dropped);
  if (!text) return out;
  const g = await groundText(text, index, c.o.embedder, { wholeSpan: true });
  const evidence = new Map(g.evidence.map((e) => [e.sentence, e]));
  const grounded = new Set<string>();
  for (const sentence of g.kept) {
    const judged = await onSubject(sentence, { isGrounded: true, reason: '' });
    if (judged.isGrounded) grounded.add(sentence);
    else g.dropped.push({ sentence, reason: judged.reason });
  }
  const all = splitSentences(text);
  const candidates = all.flatMap((sentence, i) => (grounded.has(sentence) ? [{ text: sentence, followsKept: i > 0 && grounded.has(all[i - 1]!) }] : []));
  const mended = withoutDanglingOpenings(candidates);
  for (const d of [...g.dropped, ...mended.dropped]) c.dropped.push({ text: d.sentence, reason: `chapter ${ch.index} summary: ${d.reason}` });
  if (mended.kept.length === 0) return out;
  [ch.summary, ch.summary_source, out.summary] = [
    capChars(mended.kept.slice(0, CHAPTER_SUMMARY_MAX_SENTENCES).join(' '), CAP.chapterSummary),
    'generated',
    true,
  ];
  // The key point's evidence: the window that supports it, or the whole chapter when it sums the chapter up.
  const e = evidence.get(candidates[mended.keptFrom[0]!]!.text);
  const first = ch.first_sentence + (e?.first ?? 0);
  const last = ch.first_sentence + (e ? e.end - 1 : own.length - 1);
  out.keyPoint = {
    text: capChars(mended.kept[0]!, CAP.keyPoint),
    source: 'generated',
    evidence: { first_sentence: first, last_sentence: last, start: c.sentences[first]!.start, end: c.sentences[last]!.end },
  };
  return out;
}

/** A check of generated chapter text against the chapter's centroid (ON_SUBJECT_COSINE); a verdict already negative passes through. */
function onSubjectOf(embedder: Embedder, centroid: Float32Array) {
  return async (text: string, verdict: { isGrounded: boolean; reason: string }): Promise<{ isGrounded: boolean; reason: string }> => {
    if (!verdict.isGrounded) return verdict;
    const [v] = await embedder.embed([text]);
    const c = cosine(v!, centroid);
    return c >= ON_SUBJECT_COSINE
      ? verdict
      : { isGrounded: false, reason: `off the chapter's subject (cosine ${c.toFixed(2)} to its centroid < ${ON_SUBJECT_COSINE})` };
  };
}

/** One request; a failure (not an abort) is told, noted, and answered with null. */
async function request(o: SummarizeOptions, what: string, notes: string[], req: Parameters<TextGenerator['complete']>[0]): Promise<string | null> {
  try {
    return await o.generator!.complete({ ...req, ...(o.signal ? { signal: o.signal } : {}) });
  } catch (err) {
    if (o.signal?.aborted) throw o.signal.reason;
    o.onError?.(what, err as Error);
    notes.push(`the text model failed on ${what}: its text is extractive`);
    return null;
  }
}

/**
 * Topic spans made fit for a chapter list: a span shorter than MIN_CHAPTER_SECONDS joins the
 * neighbour whose centroid is closer, then the two most alike neighbours merge until at most
 * MAX_CHAPTERS remain. Pure.
 */
export function mergeChapters(topics: readonly Span[], times: readonly { start: number; end: number }[], embeddings: readonly Float32Array[]): Span[] {
  const spans = topics.map((s) => ({ ...s }));
  const seconds = (s: Span) => times[s.last]!.end - times[s.first]!.start;
  const likeness = (i: number) =>
    cosine(meanDirection(embeddings, spans[i]!.first, spans[i]!.last + 1), meanDirection(embeddings, spans[i + 1]!.first, spans[i + 1]!.last + 1));
  const mergeWithNext = (i: number) => {
    spans[i] = { first: spans[i]!.first, last: spans[i + 1]!.last };
    spans.splice(i + 1, 1);
  };
  for (;;) {
    if (spans.length <= 1) return spans;
    const short = spans.map((s, i) => ({ i, s: seconds(s) })).filter((x) => x.s < MIN_CHAPTER_SECONDS);
    if (short.length > 0) {
      const { i } = short.reduce((a, b) => (b.s < a.s ? b : a));
      if (i === 0) mergeWithNext(0);
      else if (i === spans.length - 1) mergeWithNext(i - 1);
      else mergeWithNext(likeness(i - 1) >= likeness(i) ? i - 1 : i);
      continue;
    }
    if (spans.length <= MAX_CHAPTERS) return spans;
    let best = 0;
    for (let i = 1; i + 1 < spans.length; i++) if (likeness(i) > likeness(best)) best = i;
    mergeWithNext(best);
  }
}

function cleanTitle(title: string): string {
  return title
    .trim()
    .replace(/^(?:title|chapter \d+|part \d+):\s*/i, '')
    .replace(/^["“'‘](.*)["”'’]$/s, '$1')
    .replace(/\.$/, '')
    .trim();
}

/** A verbatim extractive text within `max`: its leading whole sentences. */
const wholeSentencesWithin = (text: string, max: number): string => leadingSentencesWithin(text, max);
