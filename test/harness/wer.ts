/**
 * Word error rate: word-level Levenshtein distance / reference length, after the normalization
 * speech benchmarks use (lower case, no punctuation, hyphens split, common abbreviations spelt out).
 */
const SPELLED: Record<string, string> = { mr: 'mister', mrs: 'missus', dr: 'doctor', st: 'saint' };

export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[-–—]/g, ' ')
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SPELLED[w] ?? w);
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  const r = normalizeWords(reference);
  const h = normalizeWords(hypothesis);
  if (r.length === 0) return h.length === 0 ? 0 : 1;
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[h.length]! / r.length;
}
