import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { idempotencyKeys } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying (payment receipts above all). */
const REPLAYED_HEADERS = ['payment-receipt', 'payment-response', 'content-type'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { scope: string; key: string };
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * `Idempotency-Key` on POST, as card processors do it: the first request with a key runs and
 * its response (any status below 500) is stored; a retry with the same key and body gets the
 * stored response, and a payment is never taken twice. The key is scoped to the caller's
 * credentials, the method and the path. A different body under the same key is a 422; a retry
 * while the first is still running is a 409.
 */
export function installIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  // preValidation: after body parsing, before schema validation, so refusals are stored too.
  app.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST') return;
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    if (!KEY_RE.test(key)) return reply.status(400).send({ error: 'Idempotency-Key must be 1-255 visible ASCII characters' });
    const scope = sha256(`${req.headers.authorization ?? 'anonymous'}|${req.method}|${req.url.split('?')[0]}`);
    const requestHash = sha256(JSON.stringify(req.body ?? null));
    const inserted = await deps.db
      .insert(idempotencyKeys)
      .values({ scope, key, requestHash, createdAt: deps.clock.now() })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length) {
      req.idempotency = { scope, key };
      return;
    }
    const [prior] = await deps.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
      .limit(1);
    if (!prior) return reply.status(409).send({ error: 'Idempotency-Key conflict; retry' });
    if (prior.requestHash !== requestHash) return reply.status(422).send({ error: 'this Idempotency-Key was used with a different request body' });
    if (prior.status == null) return reply.status(409).send({ error: 'a request with this Idempotency-Key is still in progress; retry shortly' });
    for (const [h, v] of Object.entries(prior.headers ?? {})) reply.header(h, v);
    reply.header('idempotent-replayed', 'true');
    return reply
      .status(prior.status)
      .serializer((p: unknown) => p as string)
      .send(JSON.stringify(prior.body));
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    const where = and(eq(idempotencyKeys.scope, idem.scope), eq(idempotencyKeys.key, idem.key));
    if (reply.statusCode >= 500) {
      // A server failure is not an answer: let the caller retry the same key.
      await deps.db.delete(idempotencyKeys).where(where);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of REPLAYED_HEADERS) {
      const v = reply.getHeader(h);
      if (typeof v === 'string') headers[h] = v;
    }
    let body: unknown = null;
    try {
      body = typeof payload === 'string' ? JSON.parse(payload) : null;
    } catch {
      body = payload;
    }
    await deps.db.update(idempotencyKeys).set({ status: reply.statusCode, body, headers }).where(where);
    return payload;
  });
}
