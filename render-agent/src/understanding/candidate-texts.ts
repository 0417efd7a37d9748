import type { Embedder } from './embedder.ts';
import type { CandidateForText, DroppedText, GeneratedTexts } from './find-clips.ts';
import { withoutDanglingOpenings } from './dangling.ts';
import { summaryLineEnd, unquote } from './answer-stop.ts';
import { groundText, groundTitle, indexTranscript, splitSentences } from './grounding.ts';
import { CUT_OFF_REASON, keyCharsFor, withoutCutOff } from './prompt-budget.ts';
import type { TextGenerator } from './text-generator.ts';
import { unsureWordsReason } from './unsure-words.ts';

/**
 * find_clips' titles and summaries from a text model. The model sees the candidate's key
 * sentences (its extractive hook and summary: central sentences, within KEY_CHARS) and writes a
 * title and a one-sentence summary as two labelled lines; what it writes is checked against the
 * candidate's own sentences only (grounding.ts, the summary also against the clip as a whole), so
 * a title cannot borrow from another part of the recording. A field the check refuses keeps its
 * extractive text. The hook stays extractive: it is the clip's most hook-like sentence, verbatim,
 * which is what a viewer hears (and a third text would cost the CPU another ~3 s a candidate).
 * One short request per candidate (~50 answer tokens), for the best `top` only.
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

/** Longest title, words (the prompt asks for 3-8). */
export const TITLE_MAX_WORDS = 12;
/** Summary sentences kept (the prompt asks for one). */
const SUMMARY_MAX_SENTENCES = 2;
/** Longest summary read, characters. */
const SUMMARY_MAX_CHARS = 400;
/** Tokens the answer may take: two short lines. */
const MAX_TOKENS = 90;

/** Steers towards the transcript's own words, which grounding keeps (summary-texts.ts says why). */
const SYSTEM =
  'You write short, accurate titles and summaries for clips cut from a spoken recording, reusing the words of the clip. ' +
  'Use only what the clip itself says: no names, numbers, places or claims it does not contain. ' +
  'Never write about the clip itself ("this clip", "the speaker", "the video").';

/** The `generate` hook of findClips over a text model, or null when `top` is 0. */
export function candidateTexts(o: CandidateTextsOptions): ((c: CandidateForText) => Promise<GeneratedTexts | null>) | null {
  if (o.top <= 0) return null;
  let done = 0;
  return async (c) => {
    if (c.rank > o.top) {
      // Called in rank order: the first candidate past the cut says so once.
      return c.rank === o.top + 1
        ? { notes: [`titles and summaries of the best ${o.top} candidates are from the text model; hooks and the others' texts are extractive`] }
        : null;
    }
    try {
      return await textsFor(c, o);
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      o.onError?.(c, err as Error);
      return { notes: [`the text model failed on ${c.id}: its title and summary are extractive`] };
    } finally {
      o.onDone?.(++done, o.top);
    }
  };
}

async function textsFor(c: CandidateForText, o: CandidateTextsOptions): Promise<GeneratedTexts> {
  const answer = await o.generator.complete({
    system: SYSTEM,
    prompt: promptFor(c, keyCharsFor(o.language ?? 'en')),
    maxTokens: MAX_TOKENS,
    responsePrefix: 'Title:',
    // One summary sentence is asked; the time of those a small model writes past it is not spent.
    stopAfter: summaryLineEnd('Summary'),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const drafted = parseAnswer(answer);
  o.signal?.throwIfAborted();
  const index = await indexTranscript(c.sentences, o.embedder);
  const dropped: DroppedText[] = [];
  const out: GeneratedTexts = { dropped };

  const title = cleanTitle(drafted.title);
  if (title) {
    const unsure = unsureWordsReason(title, c.unsure);
    const g =
      title.split(/\s+/).length > TITLE_MAX_WORDS
        ? { isGrounded: false, reason: `longer than ${TITLE_MAX_WORDS} words` }
        : unsure
          ? { isGrounded: false, reason: unsure }
          : await groundTitle(title, index, o.embedder);
    if (g.isGrounded) out.title = title;
    else dropped.push({ field: 'title', text: title, reason: g.reason });
  }
  const { text: summary, cut } = withoutCutOff(drafted.summary, SUMMARY_MAX_CHARS);
  if (cut) dropped.push({ field: 'summary', text: cut, reason: CUT_OFF_REASON });
  if (summary) {
    const g = await groundText(summary, index, o.embedder, { wholeSpan: true });
    const all = splitSentences(summary);
    const kept = new Set(g.kept);
    const mended = withoutDanglingOpenings(all.flatMap((text, i) => (kept.has(text) ? [{ text, followsKept: i > 0 && kept.has(all[i - 1]!) }] : [])));
    for (const d of [...g.dropped, ...mended.dropped]) dropped.push({ field: 'summary', text: d.sentence, reason: d.reason });
    if (mended.kept.length > 0) out.summary = mended.kept.slice(0, SUMMARY_MAX_SENTENCES).join(' ');
  }
  return out;
}

/** The clip's key sentences (its extractive hook and summary, in the clip's order, within `maxChars`). */
function keySentencesOf(c: CandidateForText, maxChars: number): string[] {
  const wanted = new Set([c.extractive.hook, ...splitSentences(c.extractive.summary)]);
  const key: string[] = [];
  let chars = 0;
  for (const s of c.sentences) {
    if (!wanted.has(s) || (key.length > 0 && chars + s.length > maxChars)) continue;
    key.push(s);
    chars += s.length + 1;
  }
  return key.length > 0 ? key : [c.sentences[0]!.slice(0, maxChars)];
}

function promptFor(c: CandidateForText, maxChars: number): string {
  const lines = ['Key sentences of a clip cut from a spoken recording:', keySentencesOf(c, maxChars).join(' '), ''];
  if (c.query) lines.push(`The clip was chosen because it matches the search "${c.query}": say what it says about that.`);
  if (c.unsure.length > 0) lines.push(`These words may be misheard; do not use them: ${c.unsure.map((u) => u.word).join(', ')}.`);
  lines.push(
    "Fill in these lines: the title 3 to 8 words naming the clip's subject, with words from the clip; the summary one sentence stating its most important fact, in your own words.",
    'Title:',
    'Summary:',
  );
  return lines.join('\n');
}

/** The two labelled lines of the answer ("Title: …", "Summary: …"; markdown and quotes off); a missing one is empty. */
export function parseAnswer(answer: string): { title: string; summary: string } {
  const read = (label: string) => {
    const m = new RegExp(`^\\s*(?:\\*\\*)?${label}(?:\\*\\*)?\\s*:(?:\\*\\*)?\\s*(.*)$`, 'im').exec(answer);
    return m ? unquote(m[1]!) : '';
  };
  return { title: read('title'), summary: read('summary') };
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
