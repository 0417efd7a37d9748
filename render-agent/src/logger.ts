import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Logs on stdout: JSON lines, or human-readable lines (pino-pretty) on a terminal; job code derives
 * children that carry job_id, attempt_id and agent_id.
 */
export function createLogger(level: string, agentId: string): Logger {
  const destination = process.stdout.isTTY
    ? pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : pino.destination(1);
  return pino({ level, base: { service: 'render-agent', agent_id: agentId } }, destination);
}
