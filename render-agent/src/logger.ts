import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout; job code derives children that carry job_id, attempt_id and agent_id. */
export function createLogger(level: string, agentId: string): Logger {
  return pino({ level, base: { service: 'render-agent', agent_id: agentId } });
}
