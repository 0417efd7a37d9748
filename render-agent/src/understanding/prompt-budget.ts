/**
 * Bounds on what one text-model request may hold and answer. A request shows key sentences, not
 * whole passages (summary-texts.ts says why): at most KEY_CHARS characters of them, a third of that
 * for scripts that take about a token a character. Answers are bounded by their token limit, and
 * a sentence cut off there is taken out (withoutCutOff).
 */

/** Most characters of key sentences shown for one chapter or one clip (~160 tokens of English). */
export const KEY_CHARS = 650;

/** Languages whose scripts take about a token a character: their budget is a third. */
const DENSE_SCRIPTS = new Set(['zh', 'ja', 'ko', 'th', 'lo', 'my', 'km', 'bo', 'yue']);

/** The character budget for key sentences in `language`. */
export const keyCharsFor = (language: string): number => (DENSE_SCRIPTS.has(language) ? Math.floor(KEY_CHARS / 3) : KEY_CHARS);

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
