import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import type { Ctx } from '../context.ts';
import { type EnrollTarget, mintEnrollmentToken } from '../operators/enrollment.ts';

const agentMain = fileURLToPath(new URL('../../../render-agent/src/main.ts', import.meta.url));

export interface AgentChild {
  id: string;
  process: ResultPromise;
  stop(): Promise<void>;
}

/** How a child agent proves who it is: its credential file, and a one-use enrollment token when that file does not exist yet. */
export interface AgentChildAuth {
  credentialFile: string;
  enrollmentToken?: string | undefined;
}

/** The operator the embedded default (and the test stack) enroll their own agents as. */
export const SYSTEM_OPERATOR = { id: '00000000-0000-0000-0000-000000000000', name: 'system' };

/**
 * Enrolls a local agent the way an operator enrolls a host: its credential lives in
 * `<dir>/<id>.credential.json`; only when that file is missing is a one-use enrollment token minted
 * (so a restart reuses the credential instead of minting again).
 */
export async function localAgentAuth(
  ctx: Ctx,
  target: EnrollTarget,
  dir: string,
  id: string,
  opts: { tags?: string[] | undefined } = {},
): Promise<AgentChildAuth> {
  const credentialFile = join(dir, `${id}.credential.json`);
  if (existsSync(credentialFile)) return { credentialFile };
  const minted = await mintEnrollmentToken(ctx, SYSTEM_OPERATOR, { agentId: id, tags: opts.tags }, target);
  return { credentialFile, enrollmentToken: minted.token };
}

/**
 * Starts a render-agent as its own process (as on a GPU host), inheriting this process's
 * environment plus the coordinator and NATS addresses and its credential. Its logs go to our stdout.
 */
export function startAgentChild(opts: { id: string; coordinatorUrl: string; natsUrl: string; auth: AgentChildAuth; env?: Record<string, string> }): AgentChild {
  const child = execa(process.execPath, [agentMain], {
    env: {
      ...opts.env,
      AGENT_ID: opts.id,
      COORDINATOR_URL: opts.coordinatorUrl,
      NATS_URL: opts.natsUrl,
      AGENT_CREDENTIAL_FILE: opts.auth.credentialFile,
      ...(opts.auth.enrollmentToken && { AGENT_ENROLLMENT_TOKEN: opts.auth.enrollmentToken }),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
    reject: false,
    cleanup: true,
  });
  let exited = false;
  void child.then(() => {
    exited = true;
  });
  return {
    id: opts.id,
    process: child,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await Promise.race([child, new Promise((r) => setTimeout(r, 10_000))]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}
