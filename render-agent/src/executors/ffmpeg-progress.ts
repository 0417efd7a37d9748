/**
 * Parser for `ffmpeg -progress pipe:1`: blocks of key=value lines, each closed by
 * `progress=continue` or `progress=end`. Chunks from the pipe may split lines anywhere.
 *
 * Units: out_time_us is microseconds; out_time_ms is ALSO microseconds (a long-standing ffmpeg
 * misnomer), so both are read the same way. Either may be `N/A` before the first frame.
 */
export interface FfmpegProgressParser {
  /** Feeds a chunk; returns one fraction (0..1) per block completed by it. */
  push(chunk: string): number[];
}

export function createFfmpegProgressParser(durationSeconds: number): FfmpegProgressParser {
  let pending = '';
  let outTimeUs: number | null = null;
  // Never report a step backwards: out_time can wobble between blocks.
  let last = 0;

  const fractionNow = (isEnd: boolean): number => {
    if (isEnd) return 1;
    if (outTimeUs === null || durationSeconds <= 0) return last;
    return Math.min(1, Math.max(0, outTimeUs / 1e6 / durationSeconds));
  };

  return {
    push(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      const out: number[] = [];
      for (const raw of lines) {
        const line = raw.trim();
        const eq = line.indexOf('=');
        if (eq < 0) continue;
        const key = line.slice(0, eq);
        const value = line.slice(eq + 1);
        if (key === 'out_time_us' || key === 'out_time_ms') {
          const n = Number(value);
          if (Number.isFinite(n) && n >= 0) outTimeUs = n;
        } else if (key === 'progress') {
          last = Math.max(last, fractionNow(value === 'end'));
          out.push(last);
        }
      }
      return out;
    },
  };
}
