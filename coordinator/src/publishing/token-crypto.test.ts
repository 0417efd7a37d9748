import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from '../config.ts';
import { loadOrCreateSecrets } from '../embedded/secrets.ts';
import { TokenSealError, createTokenCipher, keyId, tokenCipherOf } from './token-crypto.ts';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const secret = '1//0refresh-token-of-the-test-account';

/** Replaces one character of part `i` of a sealed string (v1.kid.iv.data.tag) by another. */
function alter(sealed: string, i: number): string {
  const parts = sealed.split('.');
  const p = parts[i]!;
  parts[i] = (p[0] === 'A' ? 'B' : 'A') + p.slice(1);
  return parts.join('.');
}

describe('token-crypto', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('round-trips, with a fresh IV each time and the key id in the clear', () => {
    const c = createTokenCipher(keyA);
    const a = c.seal(secret);
    const b = c.seal(secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(a.split('.')).toHaveLength(5);
    expect(a.startsWith(`v1.${keyId(keyA)}.`)).toBe(true);
    expect(keyId(keyA)).toMatch(/^[0-9a-f]{8}$/);
    expect(c.open(a)).toBe(secret);
    expect(c.open(c.seal(''))).toBe('');
    expect(c.isStale(a)).toBe(false);
  });

  it('refuses anything altered: IV, data, tag, key id, version', () => {
    const c = createTokenCipher(keyA);
    const sealed = c.seal(secret);
    for (const part of [2, 3, 4]) expect(() => c.open(alter(sealed, part)), `part ${part}`).toThrow(TokenSealError);
    expect(() => c.open(alter(sealed, 1))).toThrow(/neither TOKEN_ENCRYPTION_KEY nor/);
    expect(() => c.open(sealed.replace(/^v1/, 'v2'))).toThrow(TokenSealError);
    expect(() => c.open('plain-text-token')).toThrow(TokenSealError);
    // Sealed under another key with no old key configured: named by its key id.
    expect(() => createTokenCipher(keyB).open(sealed)).toThrow(new RegExp(keyId(keyA)));
  });

  it('opens with an old key and reports it stale, so it is re-sealed under the current one', () => {
    const old = createTokenCipher(keyA).seal(secret);
    const rotated = createTokenCipher(keyB, [keyA]);
    expect(rotated.open(old)).toBe(secret);
    expect(rotated.isStale(old)).toBe(true);
    const resealed = rotated.seal(rotated.open(old));
    expect(rotated.isStale(resealed)).toBe(false);
    expect(createTokenCipher(keyB).open(resealed)).toBe(secret);
  });

  it('reads TOKEN_ENCRYPTION_KEY and TOKEN_ENCRYPTION_KEYS_OLD from the configuration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cutroom-tc-'));
    dirs.push(dir);
    const config = loadCoordinatorConfig({
      DATA_DIR: dir,
      TOKEN_ENCRYPTION_KEY: keyB.toString('base64'),
      TOKEN_ENCRYPTION_KEYS_OLD: ` ${keyA.toString('base64url')} ,`,
    });
    const c = tokenCipherOf(config);
    expect(tokenCipherOf(config)).toBe(c);
    expect(c.open(createTokenCipher(keyA).seal(secret))).toBe(secret);
    expect(c.seal('x').split('.')[1]).toBe(keyId(keyB));
    expect(() => loadCoordinatorConfig({ TOKEN_ENCRYPTION_KEY: 'dG9vIHNob3J0' })).toThrow(/TOKEN_ENCRYPTION_KEY: must be 32 bytes/);
    expect(() => loadCoordinatorConfig({ TOKEN_ENCRYPTION_KEYS_OLD: `${keyA.toString('base64')},nope` })).toThrow(/TOKEN_ENCRYPTION_KEYS_OLD/);
  });

  it('without a configured key (embedded PGlite), generates one in DATA_DIR once and keeps the other secrets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cutroom-tc-'));
    dirs.push(dir);
    const before = loadOrCreateSecrets(dir, {});
    const sealed = tokenCipherOf(loadCoordinatorConfig({ DATA_DIR: dir })).seal(secret);
    // A new process (a new config object) finds the same key; the agent token and URL secret are untouched.
    expect(tokenCipherOf(loadCoordinatorConfig({ DATA_DIR: dir })).open(sealed)).toBe(secret);
    expect(loadOrCreateSecrets(dir, {})).toEqual(before);
    const stored = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(Buffer.from(stored['tokenEncryptionKey']!, 'base64')).toHaveLength(32);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });
});
