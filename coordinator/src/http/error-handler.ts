import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { isAppError } from '../lib/app-error.ts';
import { sendPaymentError } from './payment-errors.ts';

/** Turns zod issues into one readable line: `segments.0.end: must be greater than start`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * Maps every error to the spec's `{error}` body. AppError carries its status; validation and
 * fastify's own client errors are 4xx; anything else is logged and answered as a plain 500
 * without internals.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (sendPaymentError(err, reply)) return reply;
    if (isAppError(err)) return reply.status(err.status).send({ error: err.message });
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'request';
      return reply.status(400).send({ error: `invalid ${where}: ${describeIssues(err.validation.map((v) => ({ path: v.instancePath.split('/').filter(Boolean), message: v.message ?? 'invalid' })))}` });
    }
    if (err instanceof ZodError) return reply.status(400).send({ error: `invalid request: ${describeIssues(err.issues)}` });
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.status(status).send({ error: err.message });
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'internal error; please retry' });
  });
  app.setNotFoundHandler((req, reply) => reply.status(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}` }));
}
