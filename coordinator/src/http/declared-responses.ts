import type { FastifyInstance, RouteOptions } from 'fastify';
import type { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';

/**
 * Every status the server can answer is declared in /openapi.json. Routes declare what their
 * handlers answer; this `onRoute` hook adds, to every public (non-hidden) route, the `{error}`
 * responses that come from the HTTP layer itself rather than from the handler:
 * - 400: validation, the text guard (NUL / invalid UTF-8 / malformed URL, text-guard.ts), bad JSON,
 *   a path parameter over the router's limit (fastify's 414, mapped in error-handler.ts);
 * - 401 where the route takes a session token; 404 where the path has parameters;
 * - 413 / 415 where the method carries a body; 409 / 422 on POST (Idempotency-Key, idempotency.ts);
 * - 408 / 431 from the connection layer (request too slow; request line + headers too large);
 * - 503: a dependency is down (error-handler.ts) or the payment network is;
 * - 429 where the route is rate-limited (`config.limit`, rate-limit.ts).
 * A route's own declaration wins; a bare `ErrorResponse` gets a description. Payment 402s are
 * added to the document by payments/discovery.ts. A 500 is never planned, so it is not declared:
 * the fuzz test (test/api-fuzz.test.ts) fails on any 5xx.
 */
export function errorResponseTexts(
  route: { method: string | string[]; url: string; security?: readonly Record<string, unknown>[]; rateLimited?: boolean },
  opts: { bodyLimit: number },
): Record<number, string> {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
  const hasBody = methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m));
  const hasParams = /[:*]/.test(route.url);
  const takesSession = (route.security ?? []).some((s) => 'bearer' in s);
  const mib = 1024 * 1024;
  const limit = opts.bodyLimit % mib === 0 ? `${opts.bodyLimit / mib} MiB` : `${Math.round(opts.bodyLimit / 1024)} KiB`;
  const out: Record<number, string> = {
    400:
      'Bad request: a parameter or the body failed validation, a text value contains a NUL character or is not valid UTF-8, ' +
      'or the URL is malformed (bad percent-encoding, raw control or non-ASCII characters, a path parameter over 100 characters)',
    408: 'The request was not received in time',
    431: 'The request line and headers are larger than the server accepts (16 KiB)',
    503: 'A dependency (database, storage, payment network) is unavailable, or the server is shutting down; retry shortly',
  };
  if (takesSession) out[401] = 'Missing, invalid or expired session token';
  if (hasParams) out[404] = 'Not found';
  if (hasBody) {
    out[413] = `Request body larger than ${limit}`;
    out[415] = 'Unsupported Content-Type for the request body (send application/json)';
  }
  if (route.rateLimited) out[429] = 'Too many requests from this client IP or session: retry after the Retry-After header (seconds)';
  if (methods.includes('POST')) {
    out[409] = 'A request with the same Idempotency-Key is still in progress';
    out[422] = 'This Idempotency-Key was already used with a different request body';
  }
  return out;
}

/** Descriptions for statuses a route declares itself with a bare ErrorResponse (merged with the hook's). */
const ROUTE_DECLARED: Record<number, string> = {
  401: 'Missing, invalid or expired session token',
  403: 'The resource belongs to another session',
  404: 'Not found',
  409: 'Conflict with the current state of the resource',
  410: 'Gone: the parent job (source_job_id) expired or its source was deleted; upload the recording again in a new job',
  413: 'Too large (the stored upload is over the size limit)',
};

const describedCache = new Map<string, z.ZodType>();
function described(description: string): z.ZodType {
  let schema = describedCache.get(description);
  if (!schema) {
    schema = ErrorResponse.describe(description);
    describedCache.set(description, schema);
  }
  return schema;
}

/** Merges the HTTP layer's error responses into a route's `schema.response` (the route's own win). */
export function declareErrorResponses(route: RouteOptions, opts: { bodyLimit: number }): void {
  const schema = (route.schema ?? {}) as { hide?: boolean; security?: Record<string, unknown>[]; response?: Record<string, unknown> };
  if (schema.hide) return;
  const own = schema.response ?? {};
  const texts = errorResponseTexts({ method: route.method, url: route.url, security: schema.security, rateLimited: Boolean(route.config?.limit) }, opts);
  const merged: Record<string, unknown> = {};
  for (const status of [...new Set([...Object.keys(own), ...Object.keys(texts)])].sort()) {
    const theirs = own[status];
    const ours = texts[Number(status)];
    const routeText = ROUTE_DECLARED[Number(status)];
    if (theirs === undefined) merged[status] = described(ours!);
    else if (theirs !== ErrorResponse) merged[status] = theirs;
    else if (ours && routeText && ours !== routeText) merged[status] = described(`${routeText}; or: ${ours.charAt(0).toLowerCase()}${ours.slice(1)}`);
    else merged[status] = ours || routeText ? described((ours ?? routeText)!) : theirs;
  }
  route.schema = { ...schema, response: merged } as RouteOptions['schema'];
}

/** Registers the hook; call it before any route is registered. */
export function installDeclaredResponses(app: FastifyInstance): void {
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  app.addHook('onRoute', (route) => declareErrorResponses(route, { bodyLimit }));
}
