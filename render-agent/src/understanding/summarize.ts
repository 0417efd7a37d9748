import { type Sentence, sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { type Chapter, type KeyPoint, SummaryV1, type SummaryTextSource } from '@cutroom/shared/summary/summary-v1';
import type { Span } from './candidates.ts';
import { cosine, type Embedder } from './embedder.ts';
import { extractiveSummary, extractiveTexts } from './extractive.ts';
import { type Evidence as Grounding, groundText, groundTitle, indexTranscript, splitSentences, type TranscriptIndex } from './grounding.ts';
import { groundList, listItems } from './list-grounding.ts';
import { CUT_OFF_REASON, capChars, leadingSentencesWithin, promptCharsFor, spreadWithin, withoutCutOff } from './prompt-budget.ts';
import { segmentTopics } from './segment.ts';
import type { TextGenerator } from './text-generator.ts';
import { meanDirection } from './vectors.ts';

/**
 * summarize's analysis: transcript → sentences → embeddings → topic chapters → a summary v1
 * document. Long recordings are summarized by parts, then as a whole: each chapter is written
 * from its own sentences (one model request each, bounded by prompt-budget.ts), and the overview
 * and key points from the chapters' titles and summaries only, so no request ever needs more
 * than the model's context. Every generated sentence is checked against the transcript
 * (grounding.ts: a chapter's text against that chapter, the overview and key points against the
 * whole); what fails is dropped and recorded, and the extractive texts (central sentences chosen
 * by embeddings) fill in, so a recording with speech never gets an empty summary.
 */

export interface SummarizeOptions {
  transcript: TranscriptV2;
  embedder: Embedder;
  /** The text model; null or absent: extractive texts only. */
  generator?: TextGenerator | null;
  /** Most model requests (chapters first, in time order, then one for the overview). @default DEFAULT_MAX_CALLS */
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
/** Overview sentences kept. */
const OVERVIEW_MAX_SENTENCES = 4;
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

/**
 * Grounding keeps a sentence whose content words the transcript holds, so the model is steered to
 * state what was said in the speaker's words: abstract framing ("this part discusses the
 * management of …") is what a 1.5B model writes by default, and it is dropped (measured on the
 * five-topic talk: most such summaries were).
 */
const SYSTEM =
  'You summarize spoken recordings accurately. State what is said as plain facts, reusing the words of the text. ' +
  'Use only what the text says: no names, numbers, places or claims it does not contain. ' +
  'Never write about the text itself ("this part", "the recording", "the speaker", "this section"). Reply in JSON.';

const CHAPTER_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string', maxLength: 90 }, summary: { type: 'string', maxLength: 800 } },
  required: ['title', 'summary'],
} as const;

const OVERVIEW_SCHEMA = {
  type: 'object',
  properties: {
    overview: { type: 'string', maxLength: 900 },
    key_points: { type: 'array', items: { type: 'string', maxLength: 300 }, minItems: KEY_POINTS.min, maxItems: KEY_POINTS.max },
  },
  required: ['overview', 'key_points'],
} as const;

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
  // One request is kept for the whole; with a single request, the chapters stay extractive.
  const chapterCalls = generator ? Math.min(chapters.length, Math.max(0, maxCalls - 1)) : 0;
  const budget = promptCharsFor(language);

  t = now();
  for (let i = 0; i < chapterCalls; i++) {
    o.signal?.throwIfAborted();
    progress(0.1 + (0.7 * i) / Math.max(1, chapterCalls), `writing chapter ${i + 1} of ${chapters.length}`);
    const ch = chapters[i]!;
    const own = texts.slice(ch.first_sentence, ch.last_sentence + 1);
    const written = await request(o, `chapter ${ch.index}`, notes, {
      system: SYSTEM,
      prompt: chapterPrompt(ch.index, chapters.length, spreadWithin(own, budget)),
      maxTokens: 300,
      jsonSchema: CHAPTER_SCHEMA,
    });
    const draft = written === null ? null : fields(written, ['title', 'summary'], `chapter ${ch.index}`, notes);
    if (!draft) continue;
    const index = await indexTranscript(own, o.embedder);
    const onSubject = onSubjectOf(o.embedder, meanDirection(embeddings, ch.first_sentence, ch.last_sentence + 1));
    const title = cleanTitle(draft.title);
    if (title) {
      const g =
        title.split(/\s+/).length > TITLE_MAX_WORDS
          ? { isGrounded: false, reason: `longer than ${TITLE_MAX_WORDS} words` }
          : await onSubject(title, await groundTitle(title, index, o.embedder));
      if (g.isGrounded) [ch.title, ch.title_source, usedGenerator] = [capChars(title, CAP.title), 'generated', true];
      else dropped.push({ text: title, reason: `chapter ${ch.index} title: ${g.reason}` });
    }
    const summary = finished(draft.summary, CHAPTER_SCHEMA.properties.summary.maxLength, `chapter ${ch.index} summary`, dropped);
    if (summary) {
      const g = await groundText(summary, index, o.embedder);
      const keptOnSubject: string[] = [];
      for (const sentence of g.kept) {
        const judged = await onSubject(sentence, { isGrounded: true, reason: '' });
        if (judged.isGrounded) keptOnSubject.push(sentence);
        else g.dropped.push({ sentence, reason: judged.reason });
      }
      for (const d of g.dropped) dropped.push({ text: d.sentence, reason: `chapter ${ch.index} summary: ${d.reason}` });
      if (keptOnSubject.length > 0) {
        const kept = keptOnSubject.slice(0, CHAPTER_SUMMARY_MAX_SENTENCES).join(' ');
        [ch.summary, ch.summary_source, usedGenerator] = [capChars(kept, CAP.chapterSummary), 'generated', true];
      }
    }
  }
  if (generator && chapterCalls < chapters.length) {
    notes.push(
      chapterCalls === 0
        ? 'chapter titles and summaries are extractive (the text-model request budget covers only the overview)'
        : `chapters ${chapterCalls + 1}-${chapters.length} keep extractive titles and summaries: the text-model request budget (${maxCalls}) was spent`,
    );
  }
  timings.chapters = now() - t;

  // The whole, from the parts.
  t = now();
  o.signal?.throwIfAborted();
  progress(0.85, 'writing the overview');
  const keyTarget = Math.min(sentences.length, Math.max(KEY_POINTS.min, Math.min(KEY_POINTS.max, chapters.length + 1)));
  let overview = '';
  let overviewSource: SummaryTextSource = 'extractive';
  const keyPoints: KeyPoint[] = [];
  if (generator && maxCalls > chapterCalls) {
    const written = await request(o, 'the overview', notes, {
      system: SYSTEM,
      prompt: overviewPrompt(chapters, budget),
      maxTokens: 700,
      jsonSchema: OVERVIEW_SCHEMA,
    });
    const draft = written === null ? null : fields(written, ['overview', 'key_points'], 'the overview', notes);
    if (draft) {
      const whole = await indexTranscript(texts, o.embedder);
      const kept = await groundedOverview(
        finished(draft.overview, OVERVIEW_SCHEMA.properties.overview.maxLength, 'overview', dropped),
        whole,
        o.embedder,
        dropped,
      );
      if (kept.length > 0)
        [overview, overviewSource, usedGenerator] = [capChars(kept.slice(0, OVERVIEW_MAX_SENTENCES).join(' '), CAP.overview), 'generated', true];
      const vocabulary = new Set(texts.flatMap(wordsOf));
      for (const point of draft.key_points.slice(0, KEY_POINTS.max)) {
        const text = withoutDanglingWord(finished(point, OVERVIEW_SCHEMA.properties.key_points.items.maxLength, 'key point', dropped), vocabulary);
        const kp = text ? await groundedKeyPoint(text, whole, sentences, o.embedder, dropped) : null;
        if (kp && !keyPoints.some((k) => k.text === kp.text)) {
          keyPoints.push(kp);
          usedGenerator = true;
        }
      }
    }
  }
  if (!overview) {
    overview = capChars(extractiveSummary(sentences, embeddings, Math.min(3, sentences.length), { parts: spans }).text, CAP.overview);
  }
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

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/**
 * A key point without a broken last word: the model sometimes closes a list item mid-word ("…,
 * with panels d"). An item that ends without punctuation on a word the transcript never uses is
 * cut back to its last comma (or dropped whole when it has none). Exported for tests.
 */
export function withoutDanglingWord(text: string, vocabulary: ReadonlySet<string>): string {
  const t = text.trim();
  const last = wordsOf(t).at(-1);
  if (!last || /[.!?)"”’]$/.test(t) || vocabulary.has(last)) return t;
  const comma = t.lastIndexOf(',');
  return comma > 0 ? t.slice(0, comma).trimEnd() : '';
}

/** `text` without an unfinished last sentence, which is recorded as dropped. */
function finished(text: string, maxLength: number, what: string, dropped: Dropped[]): string {
  const f = withoutCutOff(text, maxLength);
  if (f.cut) dropped.push({ text: f.cut, reason: `${what}: ${CUT_OFF_REASON}` });
  return f.text;
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
 * The overview's sentences the transcript supports, in order: each checked like any generated
 * sentence, and one that fails read as a list of what the recording covers (list-grounding.ts).
 */
async function groundedOverview(text: string, whole: TranscriptIndex, embedder: Embedder, dropped: Dropped[]): Promise<string[]> {
  const kept: string[] = [];
  for (const sentence of splitSentences(text)) {
    const g = await groundText(sentence, whole, embedder);
    if (g.kept.length > 0) {
      kept.push(...g.kept);
      continue;
    }
    const list = listItems(sentence) ? await groundList(sentence, whole, embedder) : null;
    if (list?.isGrounded) kept.push(sentence);
    else dropped.push({ text: sentence, reason: `overview: ${list ? list.reason : (g.dropped[0]?.reason ?? 'no content')}` });
  }
  return kept;
}

/** A key point the whole transcript supports (its kept sentences, evidence spanning their windows), or null. */
async function groundedKeyPoint(
  point: string,
  whole: TranscriptIndex,
  sentences: readonly Sentence[],
  embedder: Embedder,
  dropped: Dropped[],
): Promise<KeyPoint | null> {
  const g = await groundText(point, whole, embedder);
  for (const d of g.dropped) dropped.push({ text: d.sentence, reason: `key point: ${d.reason}` });
  if (g.kept.length === 0) return null;
  const first = Math.min(...g.evidence.map((e: Grounding) => e.first));
  const last = Math.max(...g.evidence.map((e: Grounding) => e.end - 1));
  return {
    text: capChars(g.kept.join(' '), CAP.keyPoint),
    source: 'generated',
    evidence: { first_sentence: first, last_sentence: last, start: sentences[first]!.start, end: sentences[last]!.end },
  };
}

function chapterPrompt(index: number, count: number, text: string): string {
  return [
    `Below is part ${index} of ${count} of a spoken recording. Write:`,
    '- title: at most 8 words, naming its subject with words from the text',
    '- summary: 1 to 3 sentences stating the most important things it says, in its own words',
    '',
    'Transcript of the part:',
    text,
  ].join('\n');
}

/**
 * The chapters as the model sees them for the whole: "N. summary", each within an equal share of
 * the budget (whole sentences), so any number of chapters fits one request. Titles are left out:
 * given them, the small model writes an overview that lists titles, which no transcript passage
 * supports.
 */
export function overviewPrompt(chapters: readonly Pick<Chapter, 'index' | 'summary'>[], budget: number): string {
  const share = Math.max(80, Math.floor(budget / Math.max(1, chapters.length)));
  const lines = chapters.map((c) => {
    const head = `${c.index}. `;
    return head + leadingSentencesWithin(c.summary, Math.max(20, share - head.length));
  });
  return [
    `What a spoken recording says, part by part (${chapters.length} parts):`,
    ...lines,
    '',
    'Write:',
    '- overview: 2 to 4 sentences. Do not list the parts: each sentence states one fact from a different part, in its own words',
    `- key_points: ${Math.min(KEY_POINTS.max, Math.max(KEY_POINTS.min, chapters.length))} points, one from each part in order: the most important fact it states, one sentence, in its own words`,
  ].join('\n');
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

type Fields<K extends string> = { [F in K]: F extends 'key_points' ? string[] : string };

/**
 * The answer's fields (a missing or mistyped one reads as empty). Constrained decoding makes the
 * answer JSON; one cut off at its token limit is not, and is noted like a failed request.
 */
function fields<K extends string>(answer: string, keys: readonly K[], what: string, notes: string[]): Fields<K> | null {
  let p: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(answer);
    p = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    notes.push(`the text model's answer for ${what} could not be read: its text is extractive`);
    return null;
  }
  const read = (k: string): string | string[] => {
    const v = p[k];
    if (k === 'key_points') return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
    return typeof v === 'string' ? v : '';
  };
  return Object.fromEntries(keys.map((k) => [k, read(k)])) as Fields<K>;
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
