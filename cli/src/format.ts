/** Human units for the progress lines and listings (pure). */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1536 → "1.5 KB" (binary multiples, as the rate limit option reads them). */
export function formatBytes(n: number): string {
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${UNITS[i]}`;
}

export const formatRate = (bytesPerSecond: number): string => `${formatBytes(Math.round(bytesPerSecond))}/s`;

/** Seconds as "4s", "1m05s", "2h03m"; unknown (NaN, infinite) as "--". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A media position: 75.5 → "1:15.5", 3725 → "1:02:05". */
export function formatClock(seconds: number): string {
  const whole = Math.floor(seconds);
  const tenths = Math.round((seconds - whole) * 10);
  const carry = tenths === 10 ? 1 : 0;
  const t = whole + carry;
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  const frac = tenths > 0 && tenths < 10 ? `.${tenths}` : '';
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}${frac}` : `${m}:${sec}${frac}`;
}

/** "12.5" → 12.5, "1:05.5" → 65.5, "1:02:05" → 3725 (what formatClock prints); null when unreadable. */
export function parseClock(text: string): number | null {
  const m = /^(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return null;
  const [h, min, s] = [Number(m[1] ?? 0), Number(m[2] ?? 0), Number(m[3])];
  if ((m[2] !== undefined && s >= 60) || (m[1] !== undefined && min >= 60)) return null;
  return h * 3600 + min * 60 + s;
}

/** "256K", "1.5M", "1G", "4096" (bytes) → bytes; curl's --limit-rate units (binary multiples). Null when unreadable. */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?(?:\/s)?$/i.exec(text.trim());
  if (!m) return null;
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  const n = Math.round(Number(m[1]) * mult);
  return n > 0 ? n : null;
}

/**
 * Transfer rate over a sliding window (default 3 s) and the ETA it implies: steadier than
 * the average since the start once a transfer speeds up or stalls.
 */
export class RateMeter {
  private readonly samples: { t: number; bytes: number }[] = [];
  private readonly windowMs: number;
  constructor(windowMs = 3000) {
    this.windowMs = windowMs;
  }

  /** Records the running total at time `t` (ms). */
  add(t: number, bytes: number): void {
    this.samples.push({ t, bytes });
    while (this.samples.length > 2 && t - this.samples[1]!.t >= this.windowMs) this.samples.shift();
  }

  /** Bytes per second over the window; 0 until two samples are apart. */
  rate(): number {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.t <= first.t) return 0;
    return ((last.bytes - first.bytes) * 1000) / (last.t - first.t);
  }

  /** Seconds left for `total` bytes at the current rate (Infinity while unknown). */
  eta(total: number): number {
    const last = this.samples.at(-1);
    const r = this.rate();
    if (!last || r <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, (total - last.bytes) / r);
  }
}
