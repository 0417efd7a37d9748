import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { z } from 'zod';
import type { AgentConfig } from './config.ts';
import type { CoordinatorClient } from './coordinator-client.ts';
import type { Logger } from './logger.ts';

/** What AGENT_CREDENTIAL_FILE holds. */
export const StoredCredential = z.object({
  agent_id: z.string().min(1),
  token: z.string().min(1),
  coordinator_url: z.string(),
  saved_at: z.string(),
  /** The seed of this host's NATS user key (docs/adr/0009); made on the first start that lacks one. */
  nats_seed: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/)
    .optional(),
});
export type StoredCredential = z.infer<typeof StoredCredential>;

export async function readCredential(file: string): Promise<StoredCredential | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = StoredCredential.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a cutroom agent credential; move it away and enroll again`);
  return parsed.data;
}

/** Written to a temporary file then renamed: a crash never leaves half a credential. */
/** A new NATS user key's seed: it never leaves this host (the coordinator signs a JWT for its public key). */
export const newNatsSeed = (): string => new TextDecoder().decode(createUser().getSeed());

export async function saveCredential(file: string, cred: Omit<StoredCredential, 'saved_at'>): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify({ ...cred, saved_at: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
}

/**
 * This host's identity: the stored credential, or (first start) an enrollment with the operator's
 * one-use token, saved before it is used. Without either the agent cannot start: it says how to get one.
 */
export async function loadOrEnroll(config: AgentConfig, client: CoordinatorClient, logger: Logger, signal: AbortSignal): Promise<StoredCredential> {
  const stored = await readCredential(config.credentialFile);
  if (stored) {
    if (stored.agent_id !== config.agentId)
      logger.info({ agent_id: stored.agent_id, configured: config.agentId }, 'using the enrolled name from the credential file');
    if (stored.nats_seed) return stored;
    // A credential from before NATS keys: the key is made once and kept with it.
    await saveCredential(config.credentialFile, { ...stored, nats_seed: newNatsSeed() });
    return (await readCredential(config.credentialFile))!;
  }
  if (!config.enrollmentToken)
    throw new Error(
      `no credential at ${config.credentialFile} and no AGENT_ENROLLMENT_TOKEN: ask an operator for an enrollment token (admin console → Farm → Add a host)`,
    );
  const enrolled = await client.enroll(config.enrollmentToken, { v: 1, agent_id: config.agentId, hostname: os.hostname() }, signal);
  await saveCredential(config.credentialFile, {
    agent_id: enrolled.agent_id,
    token: enrolled.token,
    coordinator_url: config.coordinatorUrl,
    nats_seed: newNatsSeed(),
  });
  logger.info({ enrolled_as: enrolled.agent_id, tags: enrolled.tags, credential_file: config.credentialFile }, 'enrolled');
  return (await readCredential(config.credentialFile))!;
}
