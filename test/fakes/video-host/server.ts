// The HTTP front of the fake: routing, injected faults, body reading (noticing a body cut off
// by the client or by a fault, which an upload PUT must see), errors in Google's shapes, and the
// request log tests count with.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeContext, FakeSettings } from './context.ts';
import { takeFault } from './control.ts';
import { faultError, GoogleApiError, OAuthError } from './errors.ts';
import { Reply } from './reply.ts';
import { matchRoute } from './routes.ts';
import type { FakeState, RequestLogEntry } from './state.ts';

interface Body {
  body: Buffer;
  /** the body ended normally */
  complete: boolean;
}

/** Reads the body; stops after `stopAfter` bytes (keeping exactly those) or when the client goes away. */
function readBody(req: IncomingMessage, stopAfter: number | null, limit: number, onBytes: (size: number) => void): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (complete: boolean) => {
      if (settled) return;
      settled = true;
      req.removeAllListeners('data');
      resolve({ body: Buffer.concat(chunks), complete });
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = Math.min(stopAfter ?? Number.POSITIVE_INFINITY, limit) - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      onBytes(size);
      if (chunk.length >= room && (stopAfter !== null || size >= limit)) done(false);
    });
    req.on('end', () => done(true));
    req.on('error', () => done(false));
    req.on('close', () => done(false));
  });
}

function toReply(result: unknown): Reply {
  return result instanceof Reply ? result : new Reply({ status: 200, json: result });
}

function errorReply(err: unknown): Reply {
  if (err instanceof GoogleApiError) return new Reply({ status: err.status, json: err.toBody(), headers: err.init.headers ?? {} });
  if (err instanceof OAuthError) return new Reply({ status: err.status, json: err.toBody() });
  if (err instanceof RangeError || err instanceof SyntaxError) return new Reply({ status: 400, json: { error: { code: 400, message: err.message } } });
  // A bug in the fake: say so loudly rather than pretend to be Google.
  console.error('[video-host-fake] handler crashed:', err);
  return new Reply({
    status: 500,
    json: { error: { code: 500, message: `The video host fake crashed: ${err instanceof Error ? err.message : String(err)}` } },
  });
}

function send(res: ServerResponse, reply: Reply): void {
  for (const [k, v] of Object.entries(reply.headers)) res.setHeader(k, v);
  let payload = '';
  if (reply.json !== undefined) {
    res.setHeader('content-type', 'application/json; charset=UTF-8');
    payload = JSON.stringify(reply.json, null, 2);
  } else if (reply.html !== undefined) {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    payload = reply.html;
  } else if (reply.text !== undefined) {
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    payload = reply.text;
  }
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.writeHead(reply.status);
  res.end(payload);
}

export function createRequestHandler(state: FakeState, settings: FakeSettings) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', settings.baseUrl);
    const route = matchRoute(method, url.pathname);
    const log: RequestLogEntry = {
      at: settings.clock.now(),
      method,
      path: url.pathname,
      route: route?.name ?? null,
      status: 0,
      bytes: 0,
      uploadType: url.searchParams.get('uploadType'),
      uploadId: url.searchParams.get('upload_id'),
      contentRange: null,
      chunkStart: null,
      persisted: null,
      fault: false,
    };
    // Logged on arrival, so the log keeps arrival order; the status is filled in when answered.
    if (route?.kind !== 'control') state.requests.push(log);
    const fault = route && route.kind !== 'control' ? takeFault(state, route.name, method) : null;
    log.fault = fault !== null;
    if (fault?.reset) return void req.socket.destroy();

    // log.bytes grows as the body arrives, so a test can act while an upload is under way.
    const { body, complete } = await readBody(req, fault?.resetAfterBytes ?? null, settings.maxUploadBytes + (1 << 20), (n) => {
      log.bytes = n;
    });
    const cut = !complete;
    if (cut) req.socket.destroy();
    // A delay-only fault (a slow host) serves the request normally once the time has passed.
    const slowOnly = fault !== null && fault.delayMs !== null && fault.resetAfterBytes === null && !fault.dropResponse;
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs!));
    if (fault && !slowOnly && fault.resetAfterBytes === null && !fault.dropResponse)
      return finish(res, log, errorReply(faultError(fault.status, fault.reason)));
    // A body cut short is only worth anything to an upload session: it keeps what arrived.
    if (!route || (cut && route.kind !== 'upload')) return finish(res, log, route ? new Reply({ status: 0, none: true }) : notFound(method, url.pathname));

    const ctx: FakeContext = { state, settings, req: { raw: req, url, body, complete, log } };
    let reply: Reply;
    try {
      reply = toReply(await route.handler(ctx));
    } catch (err) {
      reply = errorReply(err);
    }
    if (fault && (fault.dropResponse || fault.resetAfterBytes !== null)) {
      req.socket.destroy();
      return;
    }
    finish(res, log, reply);
  };
}

function finish(res: ServerResponse, log: RequestLogEntry, reply: Reply): void {
  if (reply.none || res.destroyed) return;
  log.status = reply.status;
  send(res, reply);
}

const notFound = (method: string, path: string): Reply =>
  new Reply({
    status: 404,
    json: { error: { code: 404, message: `The video host fake does not implement ${method} ${path}.`, errors: [], status: 'NOT_FOUND' } },
  });
