import { describe, expect, it } from 'vitest';
import { SignedUrlCache } from './signed-url-cache.ts';

describe('SignedUrlCache', () => {
  it('reuses a URL for a tenth of its lifetime (at most 60 s), then signs again', async () => {
    let now = 0;
    let signed = 0;
    const cache = new SignedUrlCache({ now: () => now });
    const sign = async () => `url-${++signed}`;
    expect(await cache.get('k', 3600, sign)).toBe('url-1');
    now = 59_999;
    expect(await cache.get('k', 3600, sign)).toBe('url-1');
    now = 60_000;
    expect(await cache.get('k', 3600, sign)).toBe('url-2');
    // A 5-minute URL is reused for 30 s.
    expect(await cache.get('short', 300, sign)).toBe('url-3');
    now += 30_000;
    expect(await cache.get('short', 300, sign)).toBe('url-4');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    let signed = 0;
    const cache = new SignedUrlCache({ maxEntries: 2, now: () => 0 });
    const sign = async () => `url-${++signed}`;
    await cache.get('a', 3600, sign);
    await cache.get('b', 3600, sign);
    await cache.get('c', 3600, sign);
    expect(await cache.get('b', 3600, sign)).toBe('url-2');
    expect(await cache.get('a', 3600, sign)).toBe('url-4');
  });
});
