import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

const agentMain = fileURLToPath(new URL('../../../render-agent/src/main.ts', import.meta.url));

export interface AgentChild {
  id: string;
  process: ResultPromise;
  stop(): Promise<void>;
}

/**
 * Starts a render-agent as its own process (as on a GPU host), inheriting this process's
 * environment plus the coordinator and NATS addresses. Its logs go to our stdout.
 */
export function startAgentChild(opts: { id: string; coordinatorUrl: string; natsUrl: string; agentToken: string; env?: Record<string, string> }): AgentChild {
  const child = execa(process.execPath, [agentMain], {
    env: { ...opts.env, AGENT_ID: opts.id, COORDINATOR_URL: opts.coordinatorUrl, NATS_URL: opts.natsUrl, AGENT_TOKEN: opts.agentToken },
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
