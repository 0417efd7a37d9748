/**
 * Where a text model's answer ends when its last field is asked to be one sentence. A small model
 * writes on past what it was asked (three sentences where one was asked, until the token cap cuts
 * the last one), and on a CPU every token costs: the local generator stops once the answer matches
 * (TextRequest.stopAfter), an endpoint's answer is cut at the same place.
 */

/** `answer` up to the end of the first match of `stopAfter` (the whole answer without one, or when it does not match). */
export function upTo(answer: string, stopAfter: RegExp | undefined): string {
  const m = stopAfter ? new RegExp(stopAfter.source, stopAfter.flags.replace('g', '')).exec(answer) : null;
  return (m ? answer.slice(0, m.index + m[0].length) : answer).trim();
}

/** Abbreviations whose period does not end a sentence (a stop there would cut the sentence). */
const ABBREVIATIONS = ['Dr', 'Mr', 'Mrs', 'Ms', 'Prof', 'St', 'Mt', 'vs', 'etc', 'e\\.g', 'i\\.e', 'No'];

/**
 * Matches once the line labelled `label` (e.g. `Summary 3`, markdown allowed) holds a whole first
 * sentence and the character after it: a period in "3.5" or after "Dr" does not end it.
 */
export function summaryLineEnd(label: string): RegExp {
  const notAbbreviation = `(?<!\\b(?:${ABBREVIATIONS.join('|')}))`;
  return new RegExp(`${label.replace(/ /g, '\\s*')}\\**\\s*[:.-]\\**[^\\n]*?\\S${notAbbreviation}[.!?]["”’)]?(?=\\s)`, 'i');
}

/**
 * A field of an answer without the quotes a model put around it, and without an opening double
 * quote that never closes (a quoted passage whose answer was cut after its first sentence).
 */
export function unquote(field: string): string {
  const t = field.trim();
  const both = /^["“'‘](.*)["”'’]$/s.exec(t);
  if (both) return both[1]!.trim();
  if (/^["“]/.test(t) && !/["”]/.test(t.slice(1))) return t.slice(1).trim();
  return t;
}
