/**
 * Bounds on what one text-model request may hold. The local model's context is 4096 tokens
 * (text-generator.ts) and English runs at about 4 characters a token, so a prompt's transcript
 * text is held to PROMPT_TEXT_CHARS (~1,750 tokens), leaving room for the instructions and the
 * answer. Text is never cut off at the budget: a passage that does not fit is represented by
 * sentences spread evenly over it, so the model still sees its whole course. Answers are bounded
 * by their JSON schema's maxLength, and a sentence cut off there is taken out (withoutCutOff).
 */

/** Most characters of transcript text in one prompt. */
export const PROMPT_TEXT_CHARS = 7000;

/** Languages whose scripts take about a token a character: their budget is a third. */
const DENSE_SCRIPTS = new Set(['zh', 'ja', 'ko', 'th', 'lo', 'my', 'km', 'bo', 'yue']);

/** The character budget for transcript text in `language`. */
export const promptCharsFor = (language: string): number => (DENSE_SCRIPTS.has(language) ? Math.floor(PROMPT_TEXT_CHARS / 3) : PROMPT_TEXT_CHARS);

/**
 * `sentences` joined when they fit `maxChars`; otherwise sentences at even strides across the
 * whole list (the first always, then as many as fit), in order, with "[…]" where some were left out.
 */
export function spreadWithin(sentences: readonly string[], maxChars: number): string {
  const whole = sentences.join(' ');
  if (whole.length <= maxChars || sentences.length === 0) return whole.length <= maxChars ? whole : whole.slice(0, maxChars);
  const average = whole.length / sentences.length;
  let count = Math.max(1, Math.floor(maxChars / (average + 6)));
  for (;;) {
    const picked = stride(sentences.length, count);
    const text = joinWithGaps(sentences, picked);
    if (text.length <= maxChars || count === 1) return text.length <= maxChars ? text : text.slice(0, maxChars);
    count--;
  }
}

/** `count` indices of 0..n-1 spread evenly, the first included. */
function stride(n: number, count: number): number[] {
  const step = n / count;
  return Array.from({ length: count }, (_, j) => Math.floor(j * step));
}

function joinWithGaps(sentences: readonly string[], picked: readonly number[]): string {
  let out = '';
  picked.forEach((i, k) => {
    const gap = k > 0 && i !== picked[k - 1]! + 1;
    out += `${k === 0 ? '' : ' '}${gap ? '[…] ' : ''}${sentences[i]}`;
  });
  if (picked.at(-1)! < sentences.length - 1) out += ' […]';
  return out;
}

/** The leading whole sentences of `text` that fit `maxChars` (its first sentence cut, with "…", when even that does not). */
export function leadingSentencesWithin(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const parts = text.match(/[^.!?]+[.!?]+["”’)]?\s*|[^.!?]+$/g) ?? [text];
  let out = '';
  for (const p of parts) {
    if ((out + p).trimEnd().length > maxChars) break;
    out += p;
  }
  out = out.trimEnd();
  return out !== '' ? out : `${text.slice(0, Math.max(0, maxChars - 1)).trimEnd()}…`;
}

/** A text cut to `maxChars` at a word boundary ("…" marks the cut): for schema caps on verbatim text. */
export function capChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The text without a last sentence the model did not finish (empty when that was all of it):
 * constrained decoding stops a string at its schema's maxLength, mid-word, and the fragment may
 * still pass grounding. A text shorter than `maxLength - slack` or ending a sentence is left as it is.
 */
export function withoutCutOff(text: string, maxLength: number, slack = 8): { text: string; cut: string | null } {
  const t = text.trim();
  if (t.length < maxLength - slack || /[.!?]["”’)]?$/.test(t)) return { text: t, cut: null };
  const lastEnd = Math.max(t.lastIndexOf('. '), t.lastIndexOf('! '), t.lastIndexOf('? '));
  return lastEnd > 0 ? { text: t.slice(0, lastEnd + 1), cut: t.slice(lastEnd + 2) } : { text: '', cut: t };
}

/** Why a cut-off fragment was dropped (recorded like grounding's reasons). */
export const CUT_OFF_REASON = 'unfinished: the answer reached its length limit';
