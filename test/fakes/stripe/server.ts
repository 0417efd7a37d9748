// The HTTP front of the fake: routing, API-key check, body decoding, injected faults and
// idempotency around the handlers, and Stripe's response headers (Request-Id, Stripe-Version,
// Idempotent-Replayed) that the official client reads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { FakeContext, FakeSettings } from './context.ts';
import { takeFault } from './control.ts';
import { FakeStripeError } from './errors.ts';
import { FormParseError, parseForm, type FormObject } from './form-body.ts';
import { IdempotencyStore } from './idempotency.ts';
import { Reply } from './reply.ts';
import { matchRoute, type RouteDef } from './routes.ts';
import { newId, type FakeState } from './state.ts';

const MAX_BODY_BYTES = 1 << 20;

interface Outcome {
  status: number;
  body: unknown;
  replayed: boolean;
  /** whether an idempotency key may keep this outcome */
  persist: boolean;
}

export function createRequestHandler(state: FakeState, settings: FakeSettings, secretKey: string) {
  const idempotency = new IdempotencyStore();

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', settings.baseUrl);
    const requestId = newId('req', 14);
    const idempotencyKey = method === 'POST' ? headerValue(req, 'idempotency-key') : null;
    res.setHeader('request-id', requestId);
    res.setHeader('stripe-version', headerValue(req, 'stripe-version') ?? settings.apiVersion);
    if (idempotencyKey) res.setHeader('idempotency-key', idempotencyKey);

    const raw = await readBody(req);
    const match = matchRoute(method, url.pathname);
    if (match?.route.kind === 'api') {
      const fault = takeFault({ state }, method, url.pathname);
      if (fault?.drop) return void req.socket.destroy();
      if (fault) return sendJson(res, fault.status, { error: { type: 'api_error', message: 'An injected failure of the Stripe fake.' } });
    }
    let outcome: Outcome;
    try {
      if (!match) throw unrecognized(method, url.pathname);
      const ctx: FakeContext = {
        state,
        settings,
        req: { id: requestId, idempotencyKey, params: match.params, body: {}, json: {} },
      };
      outcome = await run(match.route, ctx, raw, url, req);
    } catch (err) {
      outcome = errorOutcome(err);
    }
    if (idempotencyKey && match?.route.kind === 'api' && !outcome.replayed) {
      idempotency.finish(idempotencyKey, outcome.persist ? { status: outcome.status, body: outcome.body, requestId } : null);
    }
    state.requests.push({ method, path: url.pathname, status: outcome.status, idempotency_key: idempotencyKey, replayed: outcome.replayed });
    if (outcome.replayed) res.setHeader('idempotent-replayed', 'true');
    if (outcome.body instanceof Reply) return sendReply(res, outcome.body);
    sendJson(res, outcome.status, outcome.body);
  };

  async function run(route: RouteDef, ctx: FakeContext, raw: string, url: URL, req: IncomingMessage): Promise<Outcome> {
    if (route.kind === 'control') {
      ctx.req.json = parseJson(raw);
    } else if (route.kind === 'api') {
      checkApiKey(req, secretKey);
      ctx.req.body = decodeForm(req.method === 'POST' ? raw : url.searchParams);
      if (ctx.req.idempotencyKey) {
        const decision = idempotency.begin(ctx.req.idempotencyKey, req.method ?? 'POST', url.pathname, ctx.req.body);
        if (decision.kind === 'replay') return { ...decision.saved, replayed: true, persist: true };
      }
    }
    const result = await route.handler(ctx);
    if (result instanceof Reply) return { status: result.status, body: result, replayed: false, persist: true };
    return { status: 200, body: structuredClone(result), replayed: false, persist: true };
  }
}

function errorOutcome(err: unknown): Outcome {
  if (err instanceof FakeStripeError) return { status: err.status, body: err.toBody(), replayed: false, persist: err.persist };
  // A bug in the fake: say so loudly rather than pretend to be Stripe.
  console.error('[stripe-fake] handler crashed:', err);
  const message = `The Stripe fake crashed: ${err instanceof Error ? err.message : String(err)}`;
  return { status: 500, body: { error: { type: 'api_error', message } }, replayed: false, persist: false };
}

function checkApiKey(req: IncomingMessage, secretKey: string): void {
  const auth = headerValue(req, 'authorization') ?? '';
  let key: string | null = null;
  if (/^Bearer /i.test(auth)) key = auth.slice(7).trim();
  else if (/^Basic /i.test(auth)) key = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8').replace(/:.*$/s, '');
  if (!key) {
    throw new FakeStripeError({
      status: 401,
      type: 'invalid_request_error',
      message:
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      persist: false,
    });
  }
  const a = Buffer.from(key);
  const b = Buffer.from(secretKey);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    const redacted = `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;
    throw new FakeStripeError({ status: 401, type: 'invalid_request_error', message: `Invalid API Key provided: ${redacted}`, persist: false });
  }
}

function decodeForm(source: string | URLSearchParams): FormObject {
  try {
    return parseForm(source);
  } catch (err) {
    if (err instanceof FormParseError) {
      throw new FakeStripeError({ status: 400, type: 'invalid_request_error', message: err.message, persist: false });
    }
    throw err;
  }
}

function parseJson(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the 400 below
  }
  throw new FakeStripeError({ status: 400, type: 'invalid_request_error', message: 'Control routes take a JSON object body.' });
}

const unrecognized = (method: string, path: string) =>
  new FakeStripeError({
    status: 404,
    type: 'invalid_request_error',
    message: `Unrecognized request URL (${method}: ${path}). The Stripe fake does not implement this endpoint.`,
    persist: false,
  });

function headerValue(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large for the Stripe fake');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, null, 2));
}

function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.location) res.setHeader('location', reply.location);
  if (reply.html !== undefined) res.setHeader('content-type', 'text/html; charset=utf-8');
  res.writeHead(reply.status);
  res.end(reply.html ?? '');
}
