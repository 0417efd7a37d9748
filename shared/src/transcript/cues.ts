import { secondsToMs } from './timestamps.ts';

/** A subtitle cue with times in whole milliseconds, ready for SRT or VTT. */
export interface Cue {
  startMs: number;
  endMs: number;
  text: string;
}

/** The minimum shown duration for a segment whose end is not after its start. */
export const MIN_CUE_MS = 500;

/**
 * Subtitle cues are single lines: Whisper's leading space (" Hello") and any embedded newlines
 * or runs of whitespace become one space, so a blank line can never end a cue early.
 */
export function cleanCueText(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/**
 * Segments -> cues that players accept: empty text dropped, sorted by start, each cue strictly
 * after (never overlapping) the previous one and with end > start. Whisper does emit zero-length
 * and overlapping segments; many players drop or stack such cues.
 */
export function normalizeCues(segments: readonly { start: number; end: number; text: string }[]): Cue[] {
  const raw = segments
    .map((s) => ({ startMs: secondsToMs(s.start), endMs: secondsToMs(s.end), text: cleanCueText(s.text) }))
    .filter((c) => c.text !== '')
    // Array.prototype.sort is stable, so equal starts keep transcript order.
    .sort((a, b) => a.startMs - b.startMs);

  const cues: Cue[] = [];
  let prevEnd = 0;
  raw.forEach((c, i) => {
    // Overlap: push the start to where the previous cue ends.
    const startMs = Math.max(c.startMs, prevEnd);
    let endMs = c.endMs;
    if (endMs <= startMs) {
      // Give it a readable duration, but not past the next cue's start; at least 1 ms so that
      // end > start always holds (the next cue is then pushed along).
      const nextStart = raw[i + 1]?.startMs ?? Number.POSITIVE_INFINITY;
      endMs = Math.max(startMs + 1, Math.min(startMs + MIN_CUE_MS, nextStart));
    }
    cues.push({ startMs, endMs, text: c.text });
    prevEnd = endMs;
  });
  return cues;
}
