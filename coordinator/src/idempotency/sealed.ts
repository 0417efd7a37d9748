import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Stored answers are sealed (AES-256-GCM) under a key derived from the credential the request
 * carried: the database holds only ciphertext and the SHA-256 of the scope, so a stored answer
 * (a paid creation's new session token, a checkout URL) is readable only by a request that
 * presents the same credential again. Nothing the server keeps can open it.
 */
const VERSION = 'v1';
const INFO = 'cutroom idempotency answer v1';

/** The 32-byte key for one (credential, scope, key). */
export function sealingKey(credential: string, scope: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(credential, 'utf8'), Buffer.from(scope, 'utf8'), Buffer.from(`${INFO}|${key}`, 'utf8'), 32));
}

export function seal(sealKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The plaintext, or null when the value was not sealed under this key (or was altered). */
export function unseal(sealKey: Buffer, sealed: string): string | null {
  const [version, data] = sealed.split('.', 2);
  if (version !== VERSION || !data) return null;
  const raw = Buffer.from(data, 'base64url');
  if (raw.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
