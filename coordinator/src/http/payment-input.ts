import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { jobs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { loadOwnedJob, type JobRow } from '../jobs/job-access.ts';
import { hasCredential, type PaymentInput } from '../payments/gate.ts';
import { callerTag } from '../payments/owner-tag.ts';
import { requireSession } from '../sessions/session-service.ts';
import { bearerToken } from './auth.ts';

/** The payment parts of a request: MPP in Authorization, x402 in PAYMENT-SIGNATURE. */
export function paymentInputOf(ctx: Ctx, req: FastifyRequest): PaymentInput {
  const sig = req.headers['payment-signature'];
  return {
    authorization: req.headers.authorization,
    paymentSignature: typeof sig === 'string' ? sig : undefined,
    resourceUrl: `${ctx.config.publicBaseUrl}${req.url}`,
    callerTag: callerTag(ctx.billing.challengeSecret, bearerToken(req)),
  };
}

/**
 * The job a payment-gated call acts on. A bearer token is authenticated first (401/403 come
 * before any 402); a request carrying only a payment credential may act on the job it pays
 * for, since a stock payment client retries the call with `Authorization: Payment …` in place
 * of the bearer.
 */
export async function jobForGatedCall(ctx: Ctx, req: FastifyRequest, jobId: string): Promise<JobRow> {
  const token = bearerToken(req);
  if (token) {
    const s = await requireSession({ db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS }, token);
    return loadOwnedJob(ctx.db, jobId, s.id);
  }
  if (!hasCredential(paymentInputOf(ctx, req))) {
    throw new AppError('unauthenticated', 'missing session token: send Authorization: Bearer <session_token> from POST /api/v1/sessions');
  }
  const [job] = await ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) throw new AppError('not_found', `job ${jobId} not found`);
  // The credential is only checked while it pays: past that (job paid, or billing off) any
  // "Payment …" header would open someone else's job, so the owner's bearer is required.
  if (!ctx.billing.enabled || job.paymentStatus !== 'pending') {
    throw new AppError('unauthenticated', 'this job is already paid: send Authorization: Bearer <session_token> of the session that owns it');
  }
  return job;
}

export function applyHeaders(reply: FastifyReply, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
}
