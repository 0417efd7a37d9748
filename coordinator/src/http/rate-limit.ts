import { createHash } from 'node:crypto';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from './auth.ts';

/** The rate-limited groups of routes; each is counted on its own. */
export type RateLimitGroup = 'session_create' | 'admin_login' | 'job_create' | 'payment';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts one call of a rate-limited group for a request: seconds to wait past a limit, else null.
     * `session`: the session token the call carries when not in the Authorization header (an MCP
     * tool's `session_token` argument), so it is counted in that session's bucket.
     */
    countRateLimit(req: FastifyRequest, group: RateLimitGroup, session?: string | null): Promise<number | null>;
  }
  interface FastifyRequest {
    /** The session a transport found in the call itself (rate-limit.ts countRateLimit), over the header's. */
    rateLimitSession?: string | null;
  }
  interface FastifyContextConfig {
    /** Counts the route in a rate-limited group (rate-limit.ts); the 429 is declared in /openapi.json. */
    limit?: RateLimitGroup;
  }
}

export interface RateLimitSettings {
  windowMs: number;
  /** POST /sessions per client IP (0: no limit). */
  sessionsPerIp: number;
  /** job_create and payment calls, each per session (0: no limit). */
  perSession: number;
  /** job_create and payment calls, each per client IP (0: no limit). */
  perIp: number;
}

type Limiter = (req: FastifyRequest) => Promise<{ isAllowed: true } | { isAllowed: false; isExceeded: boolean; ttlInSeconds: number }>;

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * Rate limits (@fastify/rate-limit's counters, in this process's memory) on the routes that
 * create or cost something: session creation per client IP; job creation and the payment calls
 * per session and per client IP. Past a limit the answer is 429 `{error}` with `Retry-After`
 * (seconds until the window resets). The client IP is the socket's unless TRUST_PROXY names the
 * proxy in front. A session is its bearer token (hashed), checked or not: a forged token only
 * gets a bucket of its own, and the per-IP limit still applies.
 */
export async function installRateLimits(app: FastifyInstance, s: RateLimitSettings): Promise<void> {
  await app.register(fastifyRateLimit, { global: false });
  const limiter = (max: number, keyOf: (req: FastifyRequest) => string | null): ((req: FastifyRequest) => ReturnType<Limiter> | null) | null => {
    if (max <= 0) return null;
    const check = app.createRateLimit({ max, timeWindow: s.windowMs, keyGenerator: (req) => keyOf(req) ?? '' }) as Limiter;
    return (req) => (keyOf(req) === null ? null : check(req));
  };
  const ipOf = (req: FastifyRequest) => normalizeIP(req.ip, 64);
  const byGroup: Record<RateLimitGroup, NonNullable<ReturnType<typeof limiter>>[]> = {
    session_create: [limiter(s.sessionsPerIp, (req) => `ip|${ipOf(req)}`)].filter((l) => l !== null),
    // Operator log-in: the same number per IP in a bucket of its own (and a back-off on failures, admin/login-backoff.ts).
    admin_login: [limiter(s.sessionsPerIp, (req) => `login|${ipOf(req)}`)].filter((l) => l !== null),
    job_create: [limiter(s.perIp, (req) => `ip|${ipOf(req)}`), limiter(s.perSession, sessionKey)].filter((l) => l !== null),
    payment: [limiter(s.perIp, (req) => `ip|${ipOf(req)}`), limiter(s.perSession, sessionKey)].filter((l) => l !== null),
  };

  /** Counts one call of `group` for this request; the seconds to wait when a limit is past, else null. */
  const count = async (req: FastifyRequest, group: RateLimitGroup, session?: string | null): Promise<number | null> => {
    // Per call: one HTTP request may carry several MCP calls, each with its own session (or the header's).
    req.rateLimitSession = session || null;
    for (const check of byGroup[group]) {
      const r = await check(req);
      if (r && !r.isAllowed && r.isExceeded) return Math.max(1, r.ttlInSeconds);
    }
    return null;
  };
  // Transports that carry several calls on one route (MCP: one POST per tool call) count each call in its own group.
  app.decorate('countRateLimit', count);

  app.addHook('onRequest', async (req, reply) => {
    const group = req.routeOptions.config?.limit;
    if (!group) return;
    const after = await count(req, group);
    if (after !== null) {
      return reply
        .status(429)
        .header('retry-after', String(after))
        .send({ error: `too many requests: retry in ${after} s` });
    }
  });
}

function sessionKey(req: FastifyRequest): string | null {
  const token = req.rateLimitSession ?? bearerToken(req);
  return token ? `session|${sha256(token)}` : null;
}
