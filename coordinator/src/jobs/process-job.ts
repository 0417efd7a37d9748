import type { Ctx } from '../context.ts';
import type { JobRow } from '../db/schema.ts';
import { creatableEntry, startDerivative, takesUpload } from '../job-types/lifecycle.ts';
import { AppError } from '../lib/app-error.ts';
import type { PaymentInput } from '../payments/gate.ts';
import { reloadJob } from './job-access.ts';
import { parentTranscriptGone, parentWordsKey, usableParent } from './parent-source.ts';
import { payIfDue } from './pay-job.ts';
import { isActive } from './transitions.ts';

export function requireDerivativeJob(job: JobRow): void {
  if (takesUpload(job.jobType)) {
    throw new AppError('wrong_endpoint', `job_type ${job.jobType} is upload-based: upload the file, then complete-upload (not process)`, {
      next: { call: 'complete_upload', jobId: job.id },
    });
  }
}

/**
 * Pays for and starts a no-upload derivative in one call. Its parent is checked again first
 * (still the caller's, completed, source held, not expired; for types that work from its
 * transcript, still holding that), so a parent that expired since the job was created costs
 * nothing: 410 before any 402. Billing on and unpaid: the payment gate
 * answers 402 without a credential; with one it settles and starts the job in the same
 * transaction (mark-paid.ts). Billing off (created paid): just starts. Repeating the call on a
 * queued or running job answers `processing` again.
 */
export async function processJob(
  ctx: Ctx,
  job: JobRow,
  payment: PaymentInput,
): Promise<{ value: { job_id: string; status: 'processing' }; receipt: Record<string, string> }> {
  requireDerivativeJob(job);
  const reply = { job_id: job.id, status: 'processing' as const };
  if (isActive(job.status)) return { value: reply, receipt: {} };
  if (job.status === 'deleted') throw new AppError('conflict', `job ${job.id} has expired or was deleted (status deleted); create a new job`);
  if (job.status !== 'pending') throw new AppError('conflict', `job ${job.id} has already run (status ${job.status}); create a new job to cut again`);
  const entry = creatableEntry(job.jobType);
  const def = entry.definition;
  if (!job.sourceJobId || !job.sessionId) throw new Error(`derivative ${job.id} has no parent or session`);
  await usableParent(ctx, job.jobType, def.facts, job.sessionId, job.sourceJobId);
  if ('needsParentTranscript' in def && def.needsParentTranscript && !(await parentWordsKey(ctx.db, job.sourceJobId))) {
    throw parentTranscriptGone(job.jobType, job.sourceJobId);
  }
  // Checked again before payment: the account may have been disconnected since creation.
  if (entry.runner === 'coordinator') await entry.definition.precheck(ctx, job.sessionId);

  const paid = await payIfDue(ctx, job, payment);
  let current = paid.job;
  if (current.status === 'pending' && current.paymentStatus === 'paid') {
    await ctx.db.transaction((tx) => startDerivative(tx, job, ctx.clock.now(), 'started (prepaid)'));
    current = await reloadJob(ctx.db, job.id);
  }
  if (!isActive(current.status) && current.status !== 'completed') {
    throw new AppError('conflict', `job ${job.id} could not start (status ${current.status})`);
  }
  ctx.notifyOutbox();
  return { value: reply, receipt: paid.receipt };
}
