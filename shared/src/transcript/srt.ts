import { readableCues } from './readable-cues.ts';
import { formatMs } from './timestamps.ts';
import type { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

/** One parsed SRT cue; times in seconds. */
export interface SrtCue {
  start: number;
  end: number;
  text: string;
}

/**
 * SubRip: numbered cues from 1 laid out for reading (readable-cues.ts: two lines of 42 characters,
 * 1-7 s), `\n` line ends, a blank line between cues, trailing newline.
 * No cues gives "" (a file with nothing to show, not a malformed cue).
 */
export function toSrt(t: TranscriptV2 | TranscriptV1): string {
  return readableCues(t)
    .map((c, i) => {
      // SRT has no escaping; a literal "-->" in text can be mistaken for a timing line by
      // lenient players, so it is softened to "->".
      const text = c.text.replaceAll('-->', '->');
      return `${i + 1}\n${formatMs(c.startMs, ',')} --> ${formatMs(c.endMs, ',')}\n${text}\n`;
    })
    .join('\n');
}

const TIME = String.raw`(?:(\d+):)?(\d{1,2}):(\d{1,2})[,.](\d{3})`;
const TIMING_LINE = new RegExp(String.raw`^\s*${TIME}\s*-->\s*${TIME}`);

function toSeconds(h: string | undefined, m: string, s: string, ms: string): number {
  return (Number(h ?? 0) * 3_600_000 + Number(m) * 60_000 + Number(s) * 1000 + Number(ms)) / 1000;
}

/**
 * Parses SRT leniently (BOM, CRLF or CR, missing cue numbers, missing final blank line,
 * `.` instead of `,`, hours omitted). Blocks without a timing line are skipped; multi-line cue
 * text is joined with `\n`.
 */
export function parseSrt(text: string): SrtCue[] {
  const lines = text
    .replace(/^\uFEFF/u, '')
    .replace(/\r\n?/gu, '\n')
    .split('\n');
  const cues: SrtCue[] = [];
  let current: SrtCue | undefined;
  let body: string[] = [];
  const flush = () => {
    if (current) cues.push({ ...current, text: body.join('\n') });
    current = undefined;
    body = [];
  };
  for (const line of lines) {
    const m = TIMING_LINE.exec(line);
    if (m) {
      flush();
      const [, h1, m1, s1, ms1, h2, m2, s2, ms2] = m;
      current = {
        start: toSeconds(h1, m1!, s1!, ms1!),
        end: toSeconds(h2, m2!, s2!, ms2!),
        text: '',
      };
    } else if (line.trim() === '') {
      flush();
    } else if (current) {
      body.push(line);
    }
    // A non-blank line outside a cue is the cue number (or junk): ignored.
  }
  flush();
  return cues;
}
