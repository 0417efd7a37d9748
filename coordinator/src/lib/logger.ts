import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** OAuth material of connected video host accounts (publishing/): as a field of the log object or one level down. */
const OAUTH_FIELDS = [
  'refresh_token',
  'access_token',
  'id_token',
  'code_verifier',
  'client_secret',
  'refreshToken',
  'accessToken',
  'codeVerifier',
  'clientSecret',
];

/** Header and field paths that carry secrets: session tokens, payment credentials, OAuth tokens. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["payment-signature"]',
  'req.headers["stripe-signature"]',
  'headers.authorization',
  'headers["payment-signature"]',
  '*.session_token',
  '*.authorization',
  '*.credential',
  ...OAUTH_FIELDS,
  ...OAUTH_FIELDS.map((f) => `*.${f}`),
];

/** Query parameters whose values may be logged; every other value (sig, session_id, X-Amz-*) is redacted. */
const LOGGABLE_QUERY = new Set(['format', 'op', 'exp', 'ct']);

/**
 * A request target as logs may show it: the path, and each query parameter's name with its value
 * replaced by `[redacted]` unless it is harmless (signatures of presigned URLs and checkout
 * session ids are capabilities).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && LOGGABLE_QUERY.has(name) ? pair : `${name}=[redacted]`;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

interface LoggedRequest {
  raw?: unknown;
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * fastify's request serializer (method, url, host, remote address), with the query string
 * redacted; fastify merges a logger's own serializers over its defaults. A plain `req` object
 * logged by hand is left as it is (the redact paths above still apply).
 */
export const serializers = {
  req: (req: LoggedRequest) =>
    req && typeof req === 'object' && 'raw' in req
      ? {
          method: req.method,
          url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }
      : req,
};

/**
 * Structured logs: JSON lines, or human-readable lines (pino-pretty) when stdout is a terminal and
 * no destination is given. Tokens, payment credentials and URL signatures never reach them.
 */
export function createLogger(level: string, name = 'coordinator', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers };
  return pino(options, destination ?? terminalOrStdout());
}

/** pino-pretty on a terminal (synchronous, so nothing is lost on exit), plain JSON on stdout otherwise. */
export function terminalOrStdout(): DestinationStream {
  return process.stdout.isTTY ? pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) : pino.destination(1);
}
