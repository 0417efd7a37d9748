// Serves the local store's presigned URLs: GET /blobs/<key> (with single Range support, which
// video players need to seek) and PUT /blobs/<key> (streamed to disk, never buffered whole).
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidBlobKeyError, assertValidBlobKey } from './blob-store.ts';
import { formatAttachmentDisposition } from './content-disposition.ts';
import { BlobTooLargeError, isCode } from './local-blob-files.ts';
import type { LocalBlobStore } from './local-blob-store.ts';
import { parseByteRange } from './parse-byte-range.ts';

/**
 * Whether a presigned PUT may still write `key` now. A valid signature only proves that we handed
 * the URL out; what it was handed out for can end before the URL does (a job's upload once the
 * job left `uploading`, an attempt's outputs once it lost the job). Injected by the coordinator,
 * so storage knows nothing about jobs. S3 has no such hook: there, commits and per-attempt keys
 * make a late write harmless instead (ARCHITECTURE.md, Storage).
 */
export type BlobWriteCheck = (key: string) => Promise<BlobWriteVerdict>;
export type BlobWriteVerdict = { allowed: true } | { allowed: false; status: 403 | 404 | 409 | 410; message: string };

export interface LocalBlobRoutesOptions {
  store: LocalBlobStore;
  /** Asked before a signed PUT reads its body. @default every signed PUT may write */
  acceptsWrite?: BlobWriteCheck;
}

/** Registers the routes in their own encapsulated context (own body parsing and error shape). */
export function registerLocalBlobRoutes(app: FastifyInstance, store: LocalBlobStore, opts: { acceptsWrite?: BlobWriteCheck } = {}): void {
  app.register(localBlobRoutes, { store, ...opts });
}

export const localBlobRoutes: FastifyPluginAsync<LocalBlobRoutesOptions> = async (scope, { store, acceptsWrite }) => {
  // Media bodies must reach the handler as the raw stream: no JSON/text parsing, no buffering,
  // whatever the Content-Type (even application/json blobs).
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  scope.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
    if (status >= 500) req.log.error({ err }, 'blob route failed');
    return sendError(reply, status, status >= 500 ? 'internal error while serving the blob; retry later' : err.message);
  });

  // Not part of the public API, so hidden from /openapi.json: these are presigned URLs (as S3's
  // are), handed out by the API already signed, never composed by callers. Their statuses:
  // 200/206 bytes, 400 invalid key / Content-Type, 403 bad or expired signature, 404 no blob,
  // 409 (or what acceptsWrite says) the URL's purpose is over, 413 too large, 416 range outside
  // the blob. @fastify/swagger would otherwise list them with a lone 200 and a path parameter
  // named `*`.
  const hidden = { schema: { hide: true } };

  // HEAD is declared, not left to fastify's automatic HEAD route: that one would read the whole
  // file just to discard it (players HEAD multi-GB media).
  scope.route({ method: ['GET', 'HEAD'], url: '/blobs/*', ...hidden, handler: serveBlob });

  async function serveBlob(req: FastifyRequest, reply: FastifyReply) {
    const key = keyOf(req);
    const check = store.verifyRequest('get', key, req.query as Record<string, unknown>);
    if (!check.isValid) return sendError(reply, 403, `${check.reason}; ask the API for a new download URL`);
    const file = await store.locate(key);
    const handle =
      file &&
      (await open(file.path).catch((err: unknown) => {
        if (isCode(err, 'ENOENT')) return null; // deleted since locate()
        throw err;
      }));
    if (!file || !handle) return sendError(reply, 404, `blob ${key} does not exist (deleted or never uploaded)`);
    // Size from the open descriptor: a concurrent replace cannot make it disagree with the bytes.
    const { size } = await handle.stat();
    const range = parseByteRange(req.headers.range, size);
    if (range.kind === 'unsatisfiable') {
      await handle.close();
      reply.header('content-range', `bytes */${size}`);
      return sendError(reply, 416, `range ${req.headers.range} is outside the ${size}-byte blob`);
    }
    const { ct, fn } = check.fields;
    reply
      .header('content-type', ct || file.contentType || 'application/octet-stream')
      .header('accept-ranges', 'bytes')
      // Blobs are user uploads served from the API's origin: never let a browser run them.
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', 'sandbox');
    if (fn) reply.header('content-disposition', formatAttachmentDisposition(fn));
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
    if (range.kind === 'partial') reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
    reply.header('content-length', end - start + 1);
    if (req.method === 'HEAD' || size === 0) {
      await handle.close();
      return reply.send();
    }
    return reply.send(handle.createReadStream({ start, end }));
  }

  scope.put('/blobs/*', hidden, async (req, reply) => {
    const key = keyOf(req);
    // Refusing before the body is read: close the connection so the client stops sending.
    const refuse = (status: number, message: string) => sendError(reply.header('connection', 'close'), status, message);
    const check = store.verifyRequest('put', key, req.query as Record<string, unknown>);
    if (!check.isValid) return refuse(403, `${check.reason}; ask the API for a new upload URL`);
    const sent = req.headers['content-type']?.trim() ?? '';
    if (sent !== check.fields.ct) {
      return refuse(400, `send the header Content-Type: ${check.fields.ct} (this URL was signed for it; got "${sent}")`);
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > store.maxUploadBytes) return refuse(413, new BlobTooLargeError(store.maxUploadBytes).message);
    const verdict = acceptsWrite ? await acceptsWrite(key) : { allowed: true as const };
    if (!verdict.allowed) return refuse(verdict.status, verdict.message);
    if (!req.body) return refuse(400, 'the upload has no body: send the file bytes as the request body');
    try {
      await store.putStream(key, req.body as Readable, check.fields.ct, store.maxUploadBytes);
    } catch (err) {
      if (err instanceof BlobTooLargeError) return refuse(413, err.message);
      throw err;
    }
    // The purpose may have ended while the body streamed (a long upload): take the write back.
    const after = acceptsWrite ? await acceptsWrite(key) : { allowed: true as const };
    if (!after.allowed) {
      await store.delete(key);
      return sendError(reply, after.status, after.message);
    }
    return reply.code(200).send();
  });
};

function keyOf(req: FastifyRequest): string {
  const key = (req.params as { '*'?: string })['*'] ?? '';
  try {
    assertValidBlobKey(key);
  } catch (err) {
    if (err instanceof InvalidBlobKeyError) throw Object.assign(err, { statusCode: 400 });
    throw err;
  }
  return key;
}

function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  reply.removeHeader('content-disposition');
  return reply.code(status).type('application/json').send({ error: message });
}
