/** Display formats: sizes, durations, times and money (USD cents on the card rail, USDC base units on the chain rail). */

export function formatBytes(n: number | null | undefined): string {
  if (n == null) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function formatMiB(mib: number): string {
  return mib >= 1024 ? `${(mib / 1024).toFixed(mib % 1024 === 0 ? 0 : 1)} GiB` : `${mib} MiB`;
}

/** 42 s, 3 m 05 s, 2 h 10 m, 3 d 4 h. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} m`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

export function secondsBetween(from: string, to: string | null): number {
  return ((to ? Date.parse(to) : Date.now()) - Date.parse(from)) / 1000;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Local time: `14:03:12` today, `2025-11-02 14:03` on another day. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  const now = new Date();
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (d.toDateString() === now.toDateString()) return time;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time.slice(0, 5)}`;
}

/** Full local date and time, for titles. */
export function formatFullTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toString() : '';
}

/** Minor units as a decimal string, with thousands separators and at least `minFraction` decimals. */
function decimal(units: string, decimals: number, minFraction: number): string {
  let v: bigint;
  try {
    v = BigInt(units);
  } catch {
    return units;
  }
  const neg = v < 0n;
  if (neg) v = -v;
  const base = 10n ** BigInt(decimals);
  const whole = (v / base).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  let frac = (v % base).toString().padStart(decimals, '0');
  while (frac.length > minFraction && frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** A ledger amount as people read it: `$12.34` (card: USD cents), `1.25 USDC` (chain: 6-decimal base units). */
export function formatAmount(rail: string, amount: string, currency?: string): string {
  if (rail === 'card' || currency?.toLowerCase() === 'usd') return `$${decimal(amount, 2, 2)}`;
  if (rail === 'chain' || currency?.toUpperCase() === 'USDC') return `${decimal(amount, 6, 2)} USDC`;
  return `${amount} ${currency ?? ''}`.trim();
}

/** What the raw amount is counted in (shown beside the human amount). */
export function unitsOf(rail: string): string {
  return rail === 'card' ? 'cents' : rail === 'chain' ? 'base units' : 'units';
}

export function sumAmounts(amounts: readonly string[]): string {
  let total = 0n;
  for (const a of amounts) {
    try {
      total += BigInt(a);
    } catch {
      /* not a number: left out */
    }
  }
  return total.toString();
}

export const shortId = (id: string): string => id.slice(0, 8);

export function compactJson(v: unknown): string {
  if (v == null) return '';
  const s = JSON.stringify(v);
  return s === '{}' ? '' : s;
}

/** `1250000` → `1,250,000`. */
export const groupDigits = (units: string): string => units.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** An action's detail as `key: value` pairs (strings unquoted, ids shortened), for a table cell. */
export function detailPairs(detail: Record<string, unknown> | null): [string, string][] {
  if (!detail) return [];
  return Object.entries(detail).map(([k, v]) => {
    const text = typeof v === 'string' ? v : Array.isArray(v) ? v.map(String).join(', ') || '–' : JSON.stringify(v);
    return [k, /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(text) ? text.slice(0, 8) : text];
  });
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
