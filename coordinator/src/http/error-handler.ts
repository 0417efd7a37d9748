import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { ERRORS } from '@cutroom/shared/failures';
import { isAppError } from '../lib/app-error.ts';
import { restErrorMessage } from './next-call.ts';
import { sendPaymentError } from './payment-errors.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** Turns zod issues into one readable line: `segments.0.end: must be greater than start`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * Maps every error to the spec's `{error}` body. AppError carries its status; validation and
 * fastify's own client errors are 4xx; text the database cannot store is a 400 and a dependency
 * that is down a 503 (classifyInfraError); anything else is logged and answered as a plain 500
 * without internals. Every status here is declared in /openapi.json (declared-responses.ts).
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (sendPaymentError(err, reply)) return reply;
    if (isAppError(err)) {
      // The taxonomy says whether repeating the same call may work (the payment network was down, …).
      if (ERRORS[err.code].retryable) reply.header('retry-after', '5');
      return reply.status(err.status).send({ error: restErrorMessage(err), ...(err.problems && { problems: err.problems }) });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'request';
      return reply.status(400).send({
        error: `invalid ${where}: ${describeIssues(err.validation.map((v) => ({ path: v.instancePath.split('/').filter(Boolean), message: v.message ?? 'invalid' })))}`,
      });
    }
    if (err instanceof ZodError) return reply.status(400).send({ error: `invalid request: ${describeIssues(err.issues)}` });
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.status(status).send({ error: err.message });
    const cls = classifyInfraError(err);
    if (cls === 'unstorable_text') {
      // The text guard (text-guard.ts) should have refused it first: log so the gap gets closed.
      req.log.warn({ err }, 'the database refused request text the guard let through');
      return reply.status(400).send({ error: 'a text value in the request cannot be stored (NUL character or invalid UTF-8)' });
    }
    if (cls === 'unavailable') {
      req.log.error({ err }, 'a dependency is unavailable');
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({ error: 'a dependency of the service is unavailable right now; nothing was done, retry shortly' });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'internal error; please retry' });
  });
  app.setNotFoundHandler((req, reply) => reply.status(404).send({ error: `no route ${req.method} ${truncate(req.url.split('?')[0] ?? '', 200)}` }));
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** SQLSTATEs for text Postgres cannot store: 22021 character_not_in_repertoire (NUL, bad UTF-8), 22P05 untranslatable_character (\u0000 in jsonb). */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);
/**
 * The database or another dependency is down, unreachable or overloaded: node's socket errors,
 * postgres.js's connection errors, SQLSTATE class 08, 57P01-57P03, 53300, and 57014 (a statement
 * cancelled by DB_STATEMENT_TIMEOUT_MS).
 */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** Looks through an error and its causes (drizzle wraps the driver's error) for a known infrastructure code. */
export function classifyInfraError(err: unknown): 'unstorable_text' | 'unavailable' | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (UNSTORABLE_TEXT.has(code)) return 'unstorable_text';
    if (UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
  }
  return null;
}

/**
 * fastify's `frameworkErrors` (errors raised by the router before any route runs), in the spec's
 * `{error}` shape: a path that is not valid percent-encoded UTF-8 and a path parameter longer than
 * the router's `maxParamLength` are both a 400 (fastify would answer the latter with 414, which the
 * API does not declare: an over-long id is just an invalid id).
 */
export function answerFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  // Sent before any hook runs (helmet's included): the security headers are set here.
  reply.headers(SECURITY_HEADERS);
  if (err.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send({ error: 'the URL path is not valid: percent-encoding must be % and two hex digits, and decode to UTF-8' });
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(400).send({ error: 'a path parameter is too long (the limit is 100 characters)' });
  } else {
    req.log.error({ err }, 'router error');
    void reply.status(500).send({ error: 'internal error; please retry' });
  }
}

const RAW_SECURITY_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * fastify's `clientErrorHandler` (a malformed request or a connection-level refusal, before any
 * request object exists), as fastify's default but with the spec's `{error}` body.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request line and headers are too large (16 KiB at most)']
        : [400, 'malformed HTTP request'];
  const body = JSON.stringify({ error: message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
