import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Authorization headers are redacted: tokens and credentials never hit logs. */
export function createLogger(level: string, name = 'coordinator'): Logger {
  return pino({
    name,
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.session_token'], censor: '[redacted]' },
  });
}
