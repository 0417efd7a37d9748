import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { seal, sealingKey, unseal } from './sealed.ts';
import { claimKey, deleteExpiredIdempotencyKeys, LEGACY_ROW_TTL_MS, releaseKey, saveAnswer } from './store.ts';
import { idempotencyPass } from './sweep-pass.ts';

describe('idempotency store', () => {
  let ctx: EngineCtx;
  beforeAll(async () => {
    ctx = await createEngineCtx();
  }, 60_000);
  afterAll(async () => {
    await ctx.close();
  });

  const claim = (scope: string, key: string, lockMs = 60_000, requestHash = 'h') => {
    const now = ctx.clock.now();
    return claimKey(ctx.db, { scope, key, requestHash, now, lockUntil: addMs(now, lockMs) });
  };
  const rows = (scope: string) => ctx.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.scope, scope));

  it('claims a key once; the holder answers it, fenced by its claim time', async () => {
    const first = await claim('s1', 'k');
    expect('claimed' in first).toBe(true);
    const second = await claim('s1', 'k');
    expect('held' in second && second.held?.status).toBeNull();
    const claimedAt = (first as { claimed: Date }).claimed;
    // A holder that no longer holds the key (another claim time) cannot write over it.
    expect(
      await saveAnswer(ctx.db, { scope: 's1', key: 'k', claimedAt: addMs(claimedAt, 1), status: 201, body: {}, headers: {}, expiresAt: ctx.clock.now() }),
    ).toBe(false);
    const saved = await saveAnswer(ctx.db, {
      scope: 's1',
      key: 'k',
      claimedAt,
      status: 402,
      body: { sealed: 'x' },
      headers: { 'www-authenticate': ['Payment a', 'Payment b'] },
      expiresAt: addMs(ctx.clock.now(), 3600_000),
    });
    expect(saved).toBe(true);
    const [row] = await rows('s1');
    expect(row).toMatchObject({ status: 402, headers: { 'www-authenticate': ['Payment a', 'Payment b'] } });
  });

  it('releases a key left in progress by a crash once its lock bound has passed', async () => {
    const crashed = await claim('s2', 'k', 120_000, 'crashed-body');
    expect('claimed' in crashed).toBe(true);
    ctx.clock.advance(119_000);
    expect('held' in (await claim('s2', 'k'))).toBe(true);
    ctx.clock.advance(1_000);
    const retry = await claim('s2', 'k', 120_000, 'retry-body');
    expect('claimed' in retry).toBe(true);
    const [row] = await rows('s2');
    expect(row!.requestHash).toBe('retry-body');
    // The crashed holder, were it alive after all, can no longer answer or release the key.
    await releaseKey(ctx.db, { scope: 's2', key: 'k', claimedAt: (crashed as { claimed: Date }).claimed });
    expect(await rows('s2')).toHaveLength(1);
    await releaseKey(ctx.db, { scope: 's2', key: 'k', claimedAt: (retry as { claimed: Date }).claimed });
    expect(await rows('s2')).toHaveLength(0);
  });

  it('deletes expired rows (answers past retention, crashed holders, legacy rows without expiry) and keeps live ones', async () => {
    const now = ctx.clock.now();
    await ctx.db.insert(idempotencyKeys).values([
      { scope: 'd', key: 'answered-expired', requestHash: 'h', status: 201, createdAt: now, expiresAt: addMs(now, 1000) },
      { scope: 'd', key: 'answered-live', requestHash: 'h', status: 201, createdAt: now, expiresAt: addMs(now, 3600_000) },
      { scope: 'd', key: 'crashed', requestHash: 'h', createdAt: now, expiresAt: addMs(now, 500) },
      { scope: 'd', key: 'legacy-old', requestHash: 'h', status: 201, createdAt: addMs(now, -LEGACY_ROW_TTL_MS - 1), expiresAt: null },
      { scope: 'd', key: 'legacy-new', requestHash: 'h', status: 201, createdAt: now, expiresAt: null },
    ]);
    ctx.clock.advance(1000);
    expect(await deleteExpiredIdempotencyKeys(ctx.db, ctx.clock.now())).toBe(3);
    expect((await rows('d')).map((r) => r.key).sort()).toEqual(['answered-live', 'legacy-new']);
    expect(await deleteExpiredIdempotencyKeys(ctx.db, ctx.clock.now())).toBe(0);
  });

  it('deletes at most `limit` rows a call', async () => {
    const now = ctx.clock.now();
    await ctx.db
      .insert(idempotencyKeys)
      .values(Array.from({ length: 5 }, (_, i) => ({ scope: 'l', key: `k${i}`, requestHash: 'h', status: 200, createdAt: now, expiresAt: now })));
    expect(await deleteExpiredIdempotencyKeys(ctx.db, ctx.clock.now(), { limit: 2 })).toBe(2);
    expect(await deleteExpiredIdempotencyKeys(ctx.db, ctx.clock.now(), { limit: 10 })).toBe(3);
  });

  it('runs as a sweep pass', async () => {
    const now = ctx.clock.now();
    await ctx.db.insert(idempotencyKeys).values({ scope: 'p', key: 'k', requestHash: 'h', status: 200, createdAt: now, expiresAt: now });
    expect(await idempotencyPass({ batch: 100 }).run(ctx, ctx.clock.now())).toEqual({ deleted: 1 });
  });
});

describe('sealed answers', () => {
  it('open only under the key of the same credential, scope and key', () => {
    const k = sealingKey('["Payment abc",""]', 'scope', 'key-1');
    const sealed = seal(k, '{"session_token":"crs_secret"}');
    expect(sealed).not.toContain('crs_secret');
    expect(unseal(k, sealed)).toBe('{"session_token":"crs_secret"}');
    expect(unseal(sealingKey('["Payment abd",""]', 'scope', 'key-1'), sealed)).toBeNull();
    expect(unseal(sealingKey('["Payment abc",""]', 'scope', 'key-2'), sealed)).toBeNull();
    // One bit of the body flipped (replacing the last two characters with "AA" was a no-op whenever
    // the ciphertext already ended so, and base64url's last character may carry unused bits).
    const raw = Buffer.from(sealed.slice('v1.'.length), 'base64url');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    expect(unseal(k, `v1.${raw.toString('base64url')}`)).toBeNull();
    expect(unseal(k, 'v0.abc')).toBeNull();
  });
});
