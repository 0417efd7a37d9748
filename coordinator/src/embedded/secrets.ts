import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newNatsAuthSeeds, type NatsAuthSeeds } from '../nats-auth/keys.ts';

export interface EmbeddedSecrets {
  /** The first operator's token (the admin console's log-in). */
  adminToken: string;
  urlSigningSecret: string;
}

/** What secrets.json holds: the secrets above and, once publishing was used, the token encryption key. */
type StoredSecrets = Partial<EmbeddedSecrets> & { tokenEncryptionKey?: string; nats?: NatsAuthSeeds };

function readStored(file: string): StoredSecrets {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets) : {};
}

/**
 * Secrets of the embedded default, generated once per data folder (mode 0600) so presigned URLs
 * and agents keep working across restarts. Configured values win.
 */
export function loadOrCreateSecrets(dataDir: string, configured: { adminToken?: string | undefined; urlSigningSecret?: string | undefined }): EmbeddedSecrets {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  const stored = readStored(file);
  const secrets: EmbeddedSecrets = {
    adminToken: stored.adminToken ?? `cro_${randomBytes(32).toString('base64url')}`,
    urlSigningSecret: stored.urlSigningSecret ?? randomBytes(32).toString('base64url'),
  };
  // Other entries (the token encryption key) are kept: losing that key would lose every connected account.
  if (!stored.adminToken || !stored.urlSigningSecret) writeFileSync(file, JSON.stringify({ ...stored, ...secrets }), { mode: 0o600 });
  return {
    adminToken: configured.adminToken ?? secrets.adminToken,
    urlSigningSecret: configured.urlSigningSecret ?? secrets.urlSigningSecret,
  };
}

/**
 * The key that seals video host tokens when TOKEN_ENCRYPTION_KEY is unset (PGlite only, see
 * config.ts): 32 random bytes, base64, generated on first use and kept in the same file, beside
 * the database it protects. Deleting DATA_DIR loses both together.
 */
export function loadOrCreateTokenKey(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  const stored = readStored(file);
  if (stored.tokenEncryptionKey) return stored.tokenEncryptionKey;
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, JSON.stringify({ ...stored, tokenEncryptionKey: key }), { mode: 0o600 });
  return key;
}

/**
 * The NATS operator and account seeds of the embedded nats-server (docs/adr/0009), generated once
 * and kept in the same file: the server's configuration is written from them at every start, and
 * the revocations it holds were signed by them.
 */
export function loadOrCreateNatsSeeds(dataDir: string): NatsAuthSeeds {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  const stored = readStored(file);
  if (stored.nats) return stored.nats;
  const nats = newNatsAuthSeeds();
  writeFileSync(file, JSON.stringify({ ...stored, nats }), { mode: 0o600 });
  return nats;
}
