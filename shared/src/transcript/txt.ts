import { cleanCueText } from './cues.ts';
import type { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

/**
 * Plain text: one segment per line in transcript order, whitespace collapsed and trimmed, empty
 * segments dropped; a trailing newline after the last line, "" when there is nothing.
 */
export function toTxt(t: TranscriptV2 | TranscriptV1): string {
  const lines = t.segments.map((s) => cleanCueText(s.text)).filter((l) => l !== '');
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
