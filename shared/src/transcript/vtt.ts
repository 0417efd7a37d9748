import { readableCues } from './readable-cues.ts';
import { formatMs } from './timestamps.ts';
import type { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

const VTT_HEADER = 'WEBVTT\n\n';

/**
 * WebVTT cue text treats `&` and `<` as markup, and `-->` ends the payload; escaping `>` as well
 * means "-->" can never survive into the output.
 */
export function escapeVttText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** WebVTT: the header, then unnumbered cues laid out as for SRT (readable-cues.ts). */
export function toVtt(t: TranscriptV2 | TranscriptV1): string {
  const cues = readableCues(t).map((c) => `${formatMs(c.startMs, '.')} --> ${formatMs(c.endMs, '.')}\n${escapeVttText(c.text)}\n`);
  return VTT_HEADER + cues.join('\n');
}
