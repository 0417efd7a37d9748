/**
 * Reuses a presigned URL while most of its lifetime is left. A caller polling GET /jobs/{id} once a
 * second asked for the same two URLs per output every time, and SigV4 signing (a chain of HMACs in
 * the AWS SDK's presigner) was the largest share of that read's CPU (`npm run bench:load`). A URL
 * is served from here at most `reuseMs` after it was signed (a tenth of its lifetime, at most 60 s),
 * so whoever receives it still has at least 90 % of the lifetime asked for. Bounded: the oldest
 * entry goes first (a Map keeps insertion order). Hand-written: a dozen lines; an LRU library would
 * add a dependency for no behaviour this needs.
 */
export class SignedUrlCache {
  readonly #entries = new Map<string, { url: string; signedAt: number; reuseMs: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(opts: { maxEntries?: number; now?: () => number } = {}) {
    this.#max = opts.maxEntries ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** The URL `sign` makes for `id` (everything the signature covers, lifetime included), reused while fresh. */
  async get(id: string, expiresInSeconds: number, sign: () => Promise<string>): Promise<string> {
    const now = this.#now();
    const hit = this.#entries.get(id);
    if (hit && now - hit.signedAt < hit.reuseMs) return hit.url;
    const url = await sign();
    this.#entries.delete(id);
    this.#entries.set(id, { url, signedAt: now, reuseMs: Math.min(60_000, expiresInSeconds * 100) });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    return url;
  }
}
