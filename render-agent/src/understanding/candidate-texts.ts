import type { Embedder } from './embedder.ts';
import type { CandidateForText, DroppedText, GeneratedTexts } from './find-clips.ts';
import { groundText, groundTitle, indexTranscript } from './grounding.ts';
import { CUT_OFF_REASON, promptCharsFor, spreadWithin, withoutCutOff } from './prompt-budget.ts';
import type { TextGenerator } from './text-generator.ts';
import { unsureWordsReason } from './unsure-words.ts';

/**
 * find_clips' titles, hooks and summaries from a text model. The model sees the candidate's own
 * sentences (and the extractive texts as a hint); what it writes is checked against those
 * sentences only (grounding.ts), so a title cannot borrow from another part of the recording.
 * A field the check refuses keeps its extractive text. One request per candidate, for the best
 * `top` only: on a CPU each takes 10-40 s, and callers mostly look at the first few.
 */

export interface CandidateTextsOptions {
  generator: TextGenerator;
  embedder: Embedder;
  /** Candidates ranked 1..top get model texts; the others keep their extractive texts. 0: none. */
  top: number;
  /** Transcript language (bounds the prompt: dense scripts take more tokens a character). @default en */
  language?: string;
  /** The attempt's signal: an abort stops the request and is thrown, never turned into a fallback. */
  signal?: AbortSignal;
  /** Told of a request that failed; the candidate keeps its extractive texts and the job goes on. */
  onError?: (candidate: CandidateForText, err: Error) => void;
  /** Told after each of the `top` candidates (for progress). */
  onDone?: (done: number, of: number) => void;
}

/** Longest title, words (the prompt asks for 10). */
export const TITLE_MAX_WORDS = 12;
/** Summary sentences kept (the prompt asks for 2-3). */
const SUMMARY_MAX_SENTENCES = 3;

export const CANDIDATE_TEXT_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 90 },
    hook: { type: 'string', maxLength: 220 },
    summary: { type: 'string', maxLength: 700 },
  },
  required: ['title', 'hook', 'summary'],
} as const;

/** Steers towards the transcript's own words, which grounding keeps (summarize.ts says why). */
const SYSTEM =
  'You write short, accurate titles, hooks and summaries for clips cut from a spoken recording, reusing the words of the clip. ' +
  'Use only what the clip itself says: no names, numbers, places or claims it does not contain. ' +
  'Never write about the clip itself ("this clip", "the speaker", "the video"). Reply in JSON.';

/** The `generate` hook of findClips over a text model, or null when `top` is 0. */
export function candidateTexts(o: CandidateTextsOptions): ((c: CandidateForText) => Promise<GeneratedTexts | null>) | null {
  if (o.top <= 0) return null;
  let done = 0;
  return async (c) => {
    if (c.rank > o.top) {
      // Called in rank order: the first candidate past the cut says so once.
      return c.rank === o.top + 1
        ? { notes: [`titles, hooks and summaries of the best ${o.top} candidates are from the text model; the others are extractive`] }
        : null;
    }
    try {
      return await textsFor(c, o);
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      o.onError?.(c, err as Error);
      return { notes: [`the text model failed on ${c.id}: its title, hook and summary are extractive`] };
    } finally {
      o.onDone?.(++done, o.top);
    }
  };
}

async function textsFor(c: CandidateForText, o: CandidateTextsOptions): Promise<GeneratedTexts> {
  const answer = await o.generator.complete({
    system: SYSTEM,
    prompt: promptFor(c, promptCharsFor(o.language ?? 'en')),
    maxTokens: 320,
    jsonSchema: CANDIDATE_TEXT_SCHEMA,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const drafted = parseAnswer(answer);
  o.signal?.throwIfAborted();
  const index = await indexTranscript(c.sentences, o.embedder);
  const dropped: DroppedText[] = [];
  const out: GeneratedTexts = { dropped };

  for (const field of ['title', 'hook'] as const) {
    const text = field === 'title' ? cleanTitle(drafted.title) : drafted.hook.trim();
    if (!text) continue;
    if (field === 'title' && text.split(/\s+/).length > TITLE_MAX_WORDS) {
      dropped.push({ field, text, reason: `longer than ${TITLE_MAX_WORDS} words` });
      continue;
    }
    const unsure = unsureWordsReason(text, c.unsure);
    if (unsure) {
      dropped.push({ field, text, reason: unsure });
      continue;
    }
    const g = await groundTitle(text, index, o.embedder);
    if (g.isGrounded) out[field] = text;
    else dropped.push({ field, text, reason: g.reason });
  }
  const { text: summary, cut } = withoutCutOff(drafted.summary, CANDIDATE_TEXT_SCHEMA.properties.summary.maxLength);
  if (cut) dropped.push({ field: 'summary', text: cut, reason: CUT_OFF_REASON });
  if (summary) {
    const g = await groundText(summary, index, o.embedder);
    for (const d of g.dropped) dropped.push({ field: 'summary', text: d.sentence, reason: d.reason });
    if (g.kept.length > 0) out.summary = g.kept.slice(0, SUMMARY_MAX_SENTENCES).join(' ');
  }
  return out;
}

function promptFor(c: CandidateForText, maxChars: number): string {
  const lines = [
    'Write for this clip of a recording:',
    '- title: at most 10 words, naming its subject with words from the clip',
    '- hook: one sentence from what the clip says that makes a listener want to hear it',
    '- summary: 2 or 3 sentences stating the most important things it says, in its own words',
  ];
  if (c.query) lines.push(`The clip was chosen because it matches the search "${c.query}": say what it says about that.`);
  lines.push(
    '',
    `Key sentences picked from the clip (a hint): ${c.extractive.hook} ${c.extractive.summary}`,
    '',
    'Transcript of the clip:',
    spreadWithin(c.sentences, maxChars),
  );
  return lines.join('\n');
}

/** The model's JSON answer, or an error naming what was wrong (the candidate then keeps its extractive texts). */
export function parseAnswer(answer: string): { title: string; hook: string; summary: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    throw new Error(`the text model's answer is not JSON: ${answer.slice(0, 120)}`);
  }
  const p = (parsed ?? {}) as Record<string, unknown>;
  const str = (k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');
  return { title: str('title'), hook: str('hook'), summary: str('summary') };
}

/** Quotes, a "Title:" label and a final period off. */
function cleanTitle(title: string): string {
  return title
    .trim()
    .replace(/^title:\s*/i, '')
    .replace(/^["“'‘](.*)["”'’]$/s, '$1')
    .replace(/\.$/, '')
    .trim();
}
