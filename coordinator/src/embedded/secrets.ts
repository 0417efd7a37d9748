import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedSecrets {
  agentToken: string;
  urlSigningSecret: string;
}

/**
 * Secrets of the embedded default, generated once per data folder (mode 0600) so presigned URLs
 * and agents keep working across restarts. Configured values win.
 */
export function loadOrCreateSecrets(dataDir: string, configured: { agentToken?: string | undefined; urlSigningSecret?: string | undefined }): EmbeddedSecrets {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  let stored: Partial<EmbeddedSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<EmbeddedSecrets>;
  const secrets: EmbeddedSecrets = {
    agentToken: stored.agentToken ?? randomBytes(32).toString('base64url'),
    urlSigningSecret: stored.urlSigningSecret ?? randomBytes(32).toString('base64url'),
  };
  if (!stored.agentToken || !stored.urlSigningSecret) writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return {
    agentToken: configured.agentToken ?? secrets.agentToken,
    urlSigningSecret: configured.urlSigningSecret ?? secrets.urlSigningSecret,
  };
}
