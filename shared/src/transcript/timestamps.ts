/**
 * Subtitle timestamps. Everything goes through integer milliseconds first: formatting from
 * float seconds directly yields drift such as 0.9995 -> "00:00:00,1000".
 */

/**
 * Seconds -> whole milliseconds. Negatives (float noise such as -0.0001 from Whisper) clamp to
 * 0. NaN and ±Infinity throw: a validated transcript cannot hold them (zod rejects them), so
 * meeting one means a bug upstream, which a "00:00:00,000" would hide.
 */
export function secondsToMs(seconds: number): number {
  if (!Number.isFinite(seconds)) throw new RangeError(`timestamp is not a finite number: ${seconds}`);
  return Math.max(0, Math.round(seconds * 1000));
}

/** Whole milliseconds -> `HH:MM:SS<sep>mmm`; hours keep growing past 99 rather than wrap. */
export function formatMs(ms: number, separator: ',' | '.'): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  const secs = Math.floor(ms / 1000) % 60;
  const millis = ms % 1000;
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(secs, 2)}${separator}${pad(millis, 3)}`;
}

/** SRT timestamp, `HH:MM:SS,mmm`. */
export function formatSrtTime(seconds: number): string {
  return formatMs(secondsToMs(seconds), ',');
}

/** WebVTT timestamp, `HH:MM:SS.mmm` (VTT allows omitting hours; we always write them). */
export function formatVttTime(seconds: number): string {
  return formatMs(secondsToMs(seconds), '.');
}
