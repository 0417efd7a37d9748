import { eq } from 'drizzle-orm';
import type { Ctx } from '../context.ts';
import { jobs, type JobRow } from '../db/schema.ts';
import { missingSession, type JobCaller } from '../jobs/create-job.ts';
import { loadOwnedJob } from '../jobs/job-access.ts';
import { AppError } from '../lib/app-error.ts';
import { hasCredential } from '../payments/gate.ts';
import { requireSession, type SessionRow } from '../sessions/session-service.ts';
import { paymentInputOf, type Credentials } from './credentials.ts';

const sessionDeps = (ctx: Ctx) => ({ db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS });

/** The caller's session: 401 without a valid, unexpired token. */
export const sessionOf = (ctx: Ctx, creds: Credentials): Promise<SessionRow> => requireSession(sessionDeps(ctx), creds.bearer);

/** A job the caller's session owns: 401, then 404 / 403. */
export async function ownedJob(ctx: Ctx, creds: Credentials, jobId: string): Promise<JobRow> {
  return loadOwnedJob(ctx.db, jobId, (await sessionOf(ctx, creds)).id);
}

/**
 * Who creates a job. A bearer token is authenticated first (a bad one is 401, never 402).
 * Without one, billing on: the payment path (a credential pays, no credential gets the 402).
 */
export async function jobCreatorOf(ctx: Ctx, creds: Credentials): Promise<JobCaller> {
  if (creds.bearer) return { sessionId: (await sessionOf(ctx, creds)).id };
  const payment = paymentInputOf(ctx, creds);
  if (ctx.billing.enabled && (hasCredential(payment) || !payment.authorization)) return { sessionId: null, payment };
  return { sessionId: (await sessionOf(ctx, creds)).id };
}

/**
 * The job a payment-gated call acts on. A bearer token is authenticated first (401/403 come
 * before any 402); a call carrying only a payment credential may act on the job it pays for,
 * since a stock payment client retries the call with `Authorization: Payment …` in place of the
 * bearer. The challenge it answers must have been issued to the owner (payments/owner-tag.ts).
 */
export async function jobForGatedCall(ctx: Ctx, creds: Credentials, jobId: string): Promise<JobRow> {
  if (creds.bearer) return ownedJob(ctx, creds, jobId);
  if (!hasCredential(paymentInputOf(ctx, creds))) throw missingSession();
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) throw new AppError('not_found', `job ${jobId} not found`);
  // The credential is only checked while it pays: past that (job paid, or billing off) any
  // "Payment …" header would open someone else's job, so the owner's bearer is required.
  if (!ctx.billing.enabled || job.paymentStatus !== 'pending') {
    throw new AppError('unauthenticated', 'this job is already paid: send the session_token of the session that owns it as the Bearer credential');
  }
  return job;
}
