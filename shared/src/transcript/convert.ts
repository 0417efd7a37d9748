import { toEdit } from './edit-format.ts';
import { toJsonV1 } from './json-v1.ts';
import { toSrt } from './srt.ts';
import { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';
import { toTxt } from './txt.ts';
import { toVtt } from './vtt.ts';

/**
 * The formats a transcript can be downloaded in. `json` is v1 (no words), `words` is v2, `edit`
 * is one `[NNNN] text` line per sentence (edit-format.ts; what edit-from-transcript takes back).
 */
export const TRANSCRIPT_FORMATS = ['srt', 'txt', 'vtt', 'json', 'words', 'edit'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export function isTranscriptFormat(s: unknown): s is TranscriptFormat {
  return typeof s === 'string' && (TRANSCRIPT_FORMATS as readonly string[]).includes(s);
}

export interface RenderedTranscript {
  body: string;
  contentType: string;
  /** File extension without the leading dot. */
  extension: string;
}

/**
 * Renders a transcript for download. The input is re-validated first (zod strips unknown keys
 * and rejects NaN/Infinity times), so whatever we serve matches the published schema; an
 * invalid transcript throws the ZodError. JSON is compact: it is for machines.
 */
export function renderTranscript(t: TranscriptV2, format: TranscriptFormat): RenderedTranscript {
  const valid = TranscriptV2.parse(t);
  switch (format) {
    case 'srt':
      return { body: toSrt(valid), contentType: 'application/x-subrip; charset=utf-8', extension: 'srt' };
    case 'vtt':
      return { body: toVtt(valid), contentType: 'text/vtt; charset=utf-8', extension: 'vtt' };
    case 'txt':
      return { body: toTxt(valid), contentType: 'text/plain; charset=utf-8', extension: 'txt' };
    case 'json':
      // JSON is UTF-8 by definition (RFC 8259), which defines no charset parameter.
      return {
        body: JSON.stringify(TranscriptV1.parse(toJsonV1(valid))),
        contentType: 'application/json',
        extension: 'json',
      };
    case 'edit':
      return { body: toEdit(valid), contentType: 'text/plain; charset=utf-8', extension: 'edit.txt' };
    case 'words':
      // "words.json" so a download never collides with (or is mistaken for) the v1 `json` file.
      return { body: JSON.stringify(valid), contentType: 'application/json', extension: 'words.json' };
  }
  // Unreachable for typed callers; guards plain-JS callers passing an unchecked query value.
  throw new RangeError(`unknown transcript format: ${String(format)}`);
}
