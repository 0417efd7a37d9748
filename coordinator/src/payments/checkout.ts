import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import type { JobRow } from '../db/schema.ts';
import { ensureCheckout } from './job-payments.ts';

/** POST /jobs/{id}/checkout: the job's hosted card checkout, created on first use. */
export async function checkoutFor(ctx: Ctx, job: JobRow): Promise<{ checkout_url: string; card_checkout_session_id: string }> {
  if (!ctx.billing.card) {
    throw new AppError(
      'invalid_request',
      ctx.billing.enabled
        ? 'card checkout is not configured on this server; pay with the chain rail (see the 402 of upload-url)'
        : 'billing is disabled on this server: jobs are created already paid',
    );
  }
  if (job.paymentStatus !== 'pending') throw new AppError('conflict', `this job needs no payment (payment_status ${job.paymentStatus})`);
  try {
    const checkout = await ensureCheckout(ctx, job);
    return checkout!;
  } catch (err) {
    if (err instanceof AppError) throw err;
    ctx.logger.warn({ job_id: job.id, err: err instanceof Error ? err.message : String(err) }, 'card processor unavailable');
    throw new AppError('unavailable', 'the card processor is unavailable right now; retry shortly');
  }
}
