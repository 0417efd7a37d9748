import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Session tokens: 32 random bytes, shown once; only the SHA-256 is stored. */
export function newSessionToken(): string {
  return `crs_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time string comparison for shared secrets (agent token). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
