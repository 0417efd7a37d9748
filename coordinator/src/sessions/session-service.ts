import { randomUUID } from 'node:crypto';
import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Session } from '@cutroom/shared/api';
import type { SessionStatus } from '@cutroom/shared/job-types';
import type { Db } from '../db/database.ts';
import { jobs, sessions } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import type { Clock } from '../lib/clock.ts';
import { addMs } from '../lib/clock.ts';
import { hashToken, newSessionToken } from '../lib/tokens.ts';

export type SessionRow = typeof sessions.$inferSelect;

export interface SessionDeps {
  db: Db;
  clock: Clock;
  ttlHours: number;
}

/** A new session row and its token (shown once; only the hash is stored). */
export function newSessionRow(now: Date, ttlHours: number) {
  const token = newSessionToken();
  const row = { id: randomUUID(), tokenHash: hashToken(token), expiresAt: addMs(now, ttlHours * 3600_000), createdAt: now, updatedAt: now };
  return { token, row };
}

export async function createSession(deps: SessionDeps) {
  const { token, row } = newSessionRow(deps.clock.now(), deps.ttlHours);
  await deps.db.insert(sessions).values(row);
  return { session_id: row.id, session_token: token, expires_at: row.expiresAt.toISOString() };
}

/** The session a bearer token belongs to, or null when the token is unknown or expired. */
export async function findSessionByToken(deps: SessionDeps, token: string): Promise<SessionRow | null> {
  const [row] = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.tokenHash, hashToken(token)), gt(sessions.expiresAt, deps.clock.now())))
    .limit(1);
  return row ?? null;
}

export async function requireSession(deps: SessionDeps, token: string | null): Promise<SessionRow> {
  if (!token)
    throw new AppError('unauthenticated', 'missing session token: create a session (free) and send its session_token as the Bearer credential', {
      next: { call: 'create_session' },
    });
  const s = await findSessionByToken(deps, token);
  if (!s) throw new AppError('unauthenticated', 'invalid or expired session token: create a new session', { next: { call: 'create_session' } });
  return s;
}

/**
 * The spec leaves session transitions open; a session's status mirrors its newest job:
 * no job or unpaid → created; paid, waiting for upload → paid/uploading; running → processing;
 * done → completed. Past expires_at → expired.
 */
function statusFromJob(job: { status: string; paymentStatus: string } | undefined): SessionStatus {
  if (!job) return 'created';
  switch (job.status) {
    case 'pending':
      return job.paymentStatus === 'paid' ? 'paid' : 'created';
    case 'uploading':
      return 'uploading';
    case 'completed':
    case 'deleted':
    case 'failed':
      return 'completed';
    default:
      return 'processing';
  }
}

export async function describeSession(deps: SessionDeps, s: SessionRow): Promise<Session> {
  const [latest] = await deps.db
    .select({ status: jobs.status, paymentStatus: jobs.paymentStatus })
    .from(jobs)
    .where(eq(jobs.sessionId, s.id))
    .orderBy(desc(jobs.createdAt))
    .limit(1);
  const [paid] = await deps.db
    .select({ total: sql<string | null>`sum(${jobs.amountPaidCents})` })
    .from(jobs)
    .where(and(eq(jobs.sessionId, s.id), inArray(jobs.paymentStatus, ['paid'])));
  const expired = s.expiresAt <= deps.clock.now();
  return {
    session_id: s.id,
    status: expired ? 'expired' : statusFromJob(latest),
    card_checkout_session_id: s.cardCheckoutSessionId,
    amount_paid_cents: paid?.total == null ? null : Number(paid.total),
    expires_at: s.expiresAt.toISOString(),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
