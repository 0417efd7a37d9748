import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { isKey, splitKeys, type CoordinatorConfig } from '../config.ts';
import { loadOrCreateTokenKey } from '../embedded/secrets.ts';

/**
 * Secrets at rest (refresh and access tokens, PKCE verifiers): AES-256-GCM, a random 96-bit IV
 * per seal. The sealed form is `v1.<kid>.<iv>.<ciphertext>.<tag>` (base64url), where kid is the
 * first 8 hex digits of sha256(key): an old key (TOKEN_ENCRYPTION_KEYS_OLD) is found by it, and
 * `v1.<kid>` is authenticated as associated data so neither can be swapped.
 */
export interface TokenCipher {
  seal(plain: string): string;
  /** The plain text; throws TokenSealError when no configured key opens it or it was altered. */
  open(sealed: string): string;
  /** Sealed under an old key: re-seal it (`seal(open(x))`) when it is next written. */
  isStale(sealed: string): boolean;
}

export class TokenSealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenSealError';
  }
}

const VERSION = 'v1';
export const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export function createTokenCipher(current: Buffer, old: readonly Buffer[] = []): TokenCipher {
  if (current.length !== 32) throw new Error('token encryption key must be 32 bytes');
  const currentId = keyId(current);
  const keys = new Map<string, Buffer>([...old.map((k) => [keyId(k), k] as const), [currentId, current]]);
  const parse = (sealed: string) => {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new TokenSealError('not a sealed token (expected v1.<kid>.<iv>.<data>.<tag>)');
    const [, kid, iv, data, tag] = parts as [string, string, string, string, string];
    return { kid, iv: Buffer.from(iv, 'base64url'), data: Buffer.from(data, 'base64url'), tag: Buffer.from(tag, 'base64url') };
  };
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(`${VERSION}.${currentId}`));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, currentId, iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed) {
      const { kid, iv, data, tag } = parse(sealed);
      const key = keys.get(kid);
      if (!key) throw new TokenSealError(`sealed under key ${kid}, which is neither TOKEN_ENCRYPTION_KEY nor one of TOKEN_ENCRYPTION_KEYS_OLD`);
      if (iv.length !== 12 || tag.length !== 16) throw new TokenSealError('sealed token is malformed');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(`${VERSION}.${kid}`));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
      } catch {
        throw new TokenSealError('sealed token failed authentication (altered, or sealed under another key with the same id)');
      }
    },
    isStale: (sealed) => parse(sealed).kid !== currentId,
  };
}

const decode = (k: string) => Buffer.from(k.trim(), 'base64');
const ciphers = new WeakMap<CoordinatorConfig, TokenCipher>();

/**
 * The cipher of a configuration: TOKEN_ENCRYPTION_KEY (+ the old keys), or, where none is set
 * (the embedded default on PGlite: config.ts requires one with DATABASE_URL), a key generated
 * once and kept in DATA_DIR beside the data it protects. One per config object.
 */
export function tokenCipherOf(config: CoordinatorConfig): TokenCipher {
  let cipher = ciphers.get(config);
  if (!cipher) {
    const current = config.TOKEN_ENCRYPTION_KEY ?? loadOrCreateTokenKey(config.DATA_DIR);
    if (!isKey(current)) throw new Error('TOKEN_ENCRYPTION_KEY must be 32 bytes, base64');
    cipher = createTokenCipher(decode(current), splitKeys(config.TOKEN_ENCRYPTION_KEYS_OLD ?? '').map(decode));
    ciphers.set(config, cipher);
  }
  return cipher;
}
