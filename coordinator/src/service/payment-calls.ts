import { eq } from 'drizzle-orm';
import { PRICES } from '@cutroom/shared/prices';
import type { Ctx } from '../context.ts';
import { checkoutSessions, jobs } from '../db/schema.ts';
import { takesUpload } from '../job-types/lifecycle.ts';
import { markJobPaid } from '../jobs/mark-paid.ts';
import { AppError } from '../lib/app-error.ts';
import { handleCardWebhook } from '../payments/checkout-webhook.ts';
import { collectPayment } from '../payments/gate.ts';
import { paymentInputOf, type Credentials } from './credentials.ts';
import type { Served } from './job-calls.ts';

/** The payment smoke test: charges 0.01 and echoes (402 with the challenges until paid). */
export async function smokeTestCall(ctx: Ctx, creds: Credentials, echo: string | undefined): Promise<Served<{ paid: true; service: string; echo?: string }>> {
  if (!ctx.billing.enabled) throw new AppError('not_found', 'payments are not configured on this server, so there is nothing to smoke-test');
  const p = PRICES.smoke_test;
  const paid = await collectPayment(
    ctx,
    paymentInputOf(ctx, creds),
    {
      description: 'cutroom payment smoke test',
      jobId: null,
      amounts: { card: BigInt(p.cardCents), chain: BigInt(p.chainUnits) },
    },
    async () => {},
  );
  return { value: { paid: true as const, service: 'cutroom', ...(echo !== undefined && { echo }) }, receipt: paid.headers };
}

/** The card processor's signed webhook: a completed checkout marks its job paid (once per event). */
export function cardWebhookCall(ctx: Ctx, rawBody: Buffer, signature: string | undefined) {
  return handleCardWebhook(ctx, rawBody, signature, (tx, jobId, s, now) => markJobPaid(tx, jobId, s, now));
}

/** Where hosted checkout returns the payer: which job it paid and whether the payment arrived. */
export async function checkoutLandingCall(ctx: Ctx, checkoutSessionId: string) {
  const [cs] = await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutSessionId)).limit(1);
  if (!cs) throw new AppError('not_found', 'unknown checkout session');
  const [job] = await ctx.db.select({ paymentStatus: jobs.paymentStatus, jobType: jobs.jobType }).from(jobs).where(eq(jobs.id, cs.jobId)).limit(1);
  // A bundle or a cut has nothing to upload: it starts on payment, so the next call is the poll.
  const startsWhenPaid = job && !takesUpload(job.jobType);
  const next = startsWhenPaid ? `GET /api/v1/jobs/${cs.jobId}` : `GET /api/v1/jobs/${cs.jobId}/upload-url`;
  return { card_checkout_session_id: cs.id, job_id: cs.jobId, payment_status: job?.paymentStatus ?? 'unknown', next };
}
