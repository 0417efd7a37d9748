import { createHash } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import type { Credentials } from './credentials.ts';

interface Counts {
  total: number;
  bySession: Map<string, number>;
  byIp: Map<string, number>;
}

/** One count per coordinator process (ctx), in memory: a replica counts its own connections. */
const countsOf = new WeakMap<Ctx, Counts>();

const bump = (m: Map<string, number>, key: string, by: 1 | -1) => {
  const n = (m.get(key) ?? 0) + by;
  if (n <= 0) m.delete(key);
  else m.set(key, n);
};

/**
 * Takes one slot for a long-lived connection (a job event stream, an MCP wait) of this caller, or
 * refuses it: past STREAMS_PER_SESSION or STREAMS_PER_IP with 429 (too_many_requests: the caller
 * holds enough already), past STREAMS_MAX with 503 (the process is full; another replica may not
 * be). Answers the release, which may be called any number of times. The session is its bearer
 * token (hashed), as the rate limits count it.
 */
export function holdStreamSlot(ctx: Ctx, creds: Pick<Credentials, 'bearer' | 'clientIp'>): () => void {
  let counts = countsOf.get(ctx);
  if (!counts) {
    counts = { total: 0, bySession: new Map(), byIp: new Map() };
    countsOf.set(ctx, counts);
  }
  const c = counts;
  const session = createHash('sha256')
    .update(creds.bearer ?? '')
    .digest('base64url');
  const ip = creds.clientIp ?? null;
  const { STREAMS_PER_SESSION, STREAMS_PER_IP, STREAMS_MAX } = ctx.config;
  if ((c.bySession.get(session) ?? 0) >= STREAMS_PER_SESSION)
    throw new AppError('too_many_requests', `this session already holds ${STREAMS_PER_SESSION} open event streams or waits: close one, or poll GET /jobs/{id}`);
  if (ip !== null && (c.byIp.get(ip) ?? 0) >= STREAMS_PER_IP)
    throw new AppError('too_many_requests', `this address already holds ${STREAMS_PER_IP} open event streams or waits: close one, or poll GET /jobs/{id}`);
  if (c.total >= STREAMS_MAX)
    throw new AppError('unavailable', 'this server holds as many event streams and waits as it takes: retry shortly, or poll GET /jobs/{id}');
  c.total += 1;
  bump(c.bySession, session, 1);
  if (ip !== null) bump(c.byIp, ip, 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    c.total -= 1;
    bump(c.bySession, session, -1);
    if (ip !== null) bump(c.byIp, ip, -1);
  };
}
