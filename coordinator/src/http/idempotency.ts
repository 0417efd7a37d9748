import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { sealingKey, seal, unseal } from '../idempotency/sealed.ts';
import { claimKey, releaseKey, saveAnswer, type StoredHeaders } from '../idempotency/store.ts';
import { addMs, type Clock } from '../lib/clock.ts';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
/** Response headers replayed with a stored answer: payment receipts, and a 402's challenges. */
export const REPLAYED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'payment-receipt', 'payment-response', 'www-authenticate', 'payment-required'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { scope: string; key: string; claimedAt: Date; sealKey: Buffer };
  }
  interface FastifyContextConfig {
    /** false: the route ignores Idempotency-Key (its answer must never be replayed, e.g. a new session token). */
    idempotency?: false;
  }
}

export interface IdempotencyOptions {
  db: Db;
  clock: Clock;
  /** How long an answer is replayed. */
  ttlMs: number;
  /** How long a request holds its key before a retry may take it over (a crash). */
  lockMs: number;
  /** A 402 is replayed only while its challenges can still be answered. */
  challengeTtlMs: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * What identifies the caller of a request: its Authorization (a session token, or an MPP payment
 * credential) and its x402 PAYMENT-SIGNATURE. Null when it carries neither: an anonymous request
 * has nothing that could bind a stored answer to its caller.
 */
export function credentialOf(req: Pick<FastifyRequest, 'headers'>): string | null {
  const auth = req.headers.authorization;
  const sig = req.headers['payment-signature'];
  const a = typeof auth === 'string' ? auth.trim() : '';
  const s = typeof sig === 'string' ? sig.trim() : '';
  return a || s ? JSON.stringify([a, s]) : null;
}

/** The scope of a key: the caller's credentials, the method and the path (stored as a hash only). */
export const scopeOf = (credential: string, method: string, path: string): string => sha256(JSON.stringify(['v2', credential, method, path]));

/**
 * `Idempotency-Key` on POST, as card processors do it: the first request with a key runs and its
 * answer (any status below 500) is stored; a retry with the same key, credentials and body gets
 * the stored answer (with its payment receipt, or a 402's challenge headers), and a payment is
 * never taken twice.
 * - The key is scoped to the caller's credentials (session token, MPP credential, x402
 *   signature), the method and the path, so one caller can never receive another's answer. A
 *   request with no credential at all is not stored (nothing ties a replay to its caller); nor is
 *   a route that opts out (`config.idempotency: false`: POST /sessions, whose answer is a token).
 * - Answers are stored sealed under a key derived from that credential (idempotency/sealed.ts):
 *   a paid creation's session token is never in the table in plaintext.
 * - A different body under the same key is a 422; a retry while the first still runs is a 409.
 *   A request that never answers (a crash) holds its key for `lockMs`; then a retry takes it over.
 * - Answers are replayed for `ttlMs` (a 402 only while its challenge lives); the sweeper deletes
 *   expired rows (deleteExpiredIdempotencyKeys).
 */
export function installIdempotency(app: FastifyInstance, deps: IdempotencyOptions): void {
  // preValidation: after body parsing, before schema validation, so refusals are stored too.
  app.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST') return;
    const key = req.headers['idempotency-key'];
    if (key === undefined || req.routeOptions.config?.idempotency === false) return;
    if (typeof key !== 'string' || !KEY_RE.test(key)) return reply.status(400).send({ error: 'Idempotency-Key must be 1-255 visible ASCII characters' });
    const credential = credentialOf(req);
    if (!credential) return;
    const scope = scopeOf(credential, req.method, req.url.split('?')[0] ?? '');
    const requestHash = sha256(JSON.stringify(req.body ?? null));
    const now = deps.clock.now();
    const sealKey = sealingKey(credential, scope, key);
    for (let attempt = 0; attempt < 2; attempt++) {
      const claim = await claimKey(deps.db, { scope, key, requestHash, now, lockUntil: addMs(now, deps.lockMs) });
      if ('claimed' in claim) {
        req.idempotency = { scope, key, claimedAt: claim.claimed, sealKey };
        return;
      }
      const prior = claim.held;
      if (!prior) continue; // deleted between the two statements: claim again
      if (prior.requestHash !== requestHash) return reply.status(422).send({ error: 'this Idempotency-Key was used with a different request body' });
      if (prior.status == null) {
        return reply.status(409).header('retry-after', '1').send({ error: 'a request with this Idempotency-Key is still in progress; retry shortly' });
      }
      const sealed = (prior.body as { sealed?: unknown } | null)?.sealed;
      const body = typeof sealed === 'string' ? unseal(sealKey, sealed) : null;
      if (body === null) return reply.status(422).send({ error: 'the stored answer of this Idempotency-Key cannot be replayed; use a new key' });
      for (const [h, v] of Object.entries((prior.headers ?? {}) as StoredHeaders)) reply.header(h, v);
      reply.header('idempotent-replayed', 'true');
      return reply
        .status(prior.status)
        .serializer((p: unknown) => p as string)
        .send(body);
    }
    return reply.status(409).header('retry-after', '1').send({ error: 'Idempotency-Key conflict; retry' });
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    req.idempotency = undefined;
    const held = { scope: idem.scope, key: idem.key, claimedAt: idem.claimedAt };
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      // A server failure is not an answer (and a stream is not stored): let the caller retry the same key.
      if (reply.statusCode >= 500 || text === null) {
        await releaseKey(deps.db, held);
        return payload;
      }
      const headers: StoredHeaders = {};
      for (const h of REPLAYED_HEADERS) {
        const v = reply.getHeader(h);
        if (typeof v === 'string' || typeof v === 'number') headers[h] = String(v);
        else if (Array.isArray(v)) headers[h] = v.map(String);
      }
      const ttlMs = reply.statusCode === 402 ? Math.min(deps.ttlMs, deps.challengeTtlMs) : deps.ttlMs;
      await saveAnswer(deps.db, {
        ...held,
        status: reply.statusCode,
        body: { sealed: seal(idem.sealKey, text) },
        headers,
        expiresAt: addMs(deps.clock.now(), ttlMs),
      });
    } catch (err) {
      // The answer still goes out; the key stays held until its lock bound, then a retry runs again.
      req.log.error({ err }, 'could not store the answer of an Idempotency-Key');
    }
    return payload;
  });
}
