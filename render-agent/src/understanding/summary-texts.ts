import type { Sentence } from '@cutroom/shared/transcript/sentences';
import type { Span } from './candidates.ts';
import { unquote } from './answer-stop.ts';
import { extractiveSummary } from './extractive.ts';
import { KEY_CHARS } from './prompt-budget.ts';

/**
 * What summarize asks the text model, and how: one request per batch of chapters (BATCH_CHAPTERS),
 * each chapter shown by its key sentences (the most central ones, within KEY_CHARS, in time order)
 * rather than its whole transcript, and a short answer (a title and one or two sentences a
 * chapter; the overview is composed from the chapters, summarize.ts composeOverview). On a CPU the time
 * goes into reading the prompt (~100 tokens/s for a 1.5B model on 2 cores) and writing the answer
 * (8-24 tokens/s), so both are kept small: the old way — each chapter's whole text, then an
 * overview request — took 16-30 s per minute of audio (docs/benchmarks.md).
 */

/**
 * Most chapters in one request. One: asked for several chapters at once, the 1.5B model wrote
 * one chapter's summary under another's label (on the evaluation's three-topic talk, parts 1
 * and 2 swapped: grounding dropped both), and a request a chapter costs only its instructions
 * again (~1 s of prompt on 2 cores). The batching stays for endpoints and larger models.
 */
export const BATCH_CHAPTERS = 1;

export const SYSTEM =
  'You summarize spoken recordings accurately. State what is said as plain facts, reusing the words of the text. ' +
  'Use only what the text says: no names, numbers, places or claims it does not contain. ' +
  'Never write about the text itself ("this part", "the recording", "the speaker").';

/** The key sentences of one chapter: central sentences (extractive.ts) within KEY_CHARS, in time order. */
export function keySentences(sentences: readonly Sentence[], embeddings: readonly Float32Array[], span: Span, maxChars = KEY_CHARS): string[] {
  const count = span.last - span.first + 1;
  let best: string[] = [];
  for (let n = 1; n <= count; n++) {
    const picked = extractiveSummary(sentences, embeddings, n, { parts: [span] }).sentences.map((s) => s.text);
    if (picked.join(' ').length > maxChars && best.length > 0) break;
    best = picked;
    if (picked.join(' ').length > maxChars) break;
  }
  return best.length > 0 ? best : [sentences[span.first]!.text.slice(0, maxChars)];
}

/** Chapters in requests of at most BATCH_CHAPTERS, balanced (7 → 4 + 3, not 6 + 1). */
export function batches<T>(items: readonly T[], size = BATCH_CHAPTERS): T[][] {
  const count = Math.ceil(items.length / size);
  const out: T[][] = [];
  for (let b = 0, at = 0; b < count; b++) {
    const n = Math.ceil((items.length - at) / (count - b));
    out.push(items.slice(at, at + n));
    at += n;
  }
  return out;
}

/**
 * Tokens an answer may take: a title and a sentence a part (~45 tokens), with room for a model
 * that writes two sentences. The bound is what keeps a request short when the model copies long
 * passages instead of summing them up.
 */
export const batchMaxTokens = (parts: number): number => 20 + parts * 60;

/**
 * The answer is asked for as labelled lines the prompt lists ("Title 1:", "Summary 1:", …), and the local model's answer is started with the first label, not as JSON under a
 * grammar: constrained decoding made the 1.5B model 2.5 times slower a token on this CPU
 * (4 against 10.7 tokens/s, docs/benchmarks.md), and a line that is missing or unreadable only
 * leaves that text extractive.
 */
export function batchPrompt(parts: readonly { index: number; key: string[]; unsure?: readonly string[] }[], o: { total: number }): string {
  const unsure = [...new Set(parts.flatMap((p) => p.unsure ?? []))];
  const lines = [
    o.total === 1
      ? 'Key sentences of a spoken recording:'
      : parts.length === 1
        ? `Key sentences of part ${parts[0]!.index} of a spoken recording of ${o.total} parts:`
        : `Key sentences of parts ${parts[0]!.index}-${parts.at(-1)!.index} of a spoken recording of ${o.total} parts:`,
    ...parts.map((p) => `Part ${p.index}: ${p.key.join(' ')}`),
    '',
    ...(unsure.length > 0 ? [`These words may be misheard; do not use them in a title: ${unsure.join(', ')}.`] : []),
    "Fill in these lines: each title 3 to 6 words naming the subject of its part; each summary one sentence stating the part's most important fact in your own words.",
    ...parts.flatMap((p) => [`Title ${p.index}:`, `Summary ${p.index}:`]),
  ];
  return lines.join('\n');
}

/** How the local model's answer is started (the first label of the lines asked for). */
export const batchAnswerPrefix = (parts: readonly { index: number }[]): string => `Title ${parts[0]!.index}:`;

export interface BatchAnswer {
  parts: { title: string; summary: string }[];
}

/**
 * The labelled lines of an answer, for the chapters `indices`: a label may carry markdown ("**Title
 * 1:**"). What is missing reads as empty (its chapter keeps extractive texts).
 */
export function parseBatch(answer: string, indices: readonly number[]): BatchAnswer {
  const fields = new Map<string, string>();
  for (const raw of answer.split('\n')) {
    const line = raw.replace(/\*\*/g, '').trim();
    const m = /^(title|summary)\s*(\d+)\s*[:.-]\s*(.*)$/i.exec(line);
    if (m) fields.set(`${m[1]!.toLowerCase()} ${m[2]}`, unquote(m[3]!));
  }
  return { parts: indices.map((i) => ({ title: fields.get(`title ${i}`) ?? '', summary: fields.get(`summary ${i}`) ?? '' })) };
}
