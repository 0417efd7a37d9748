import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Header and field paths that carry secrets: session tokens and payment credentials. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["payment-signature"]',
  'req.headers["stripe-signature"]',
  'headers.authorization',
  'headers["payment-signature"]',
  '*.session_token',
  '*.authorization',
  '*.credential',
];

/** Structured JSON logs. Tokens and payment credentials never reach them. */
export function createLogger(level: string, name = 'coordinator', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
