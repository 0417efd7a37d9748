import type { Job } from '../api-types.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { followJob } from '../follow.ts';

/** Follows a queued or running job with the processing bar; a failed or deleted job is a CliError (exit 1). */
export async function followToCompletion(ctx: Ctx, jobId: string): Promise<Job> {
  ctx.current = { jobId, phase: 'processing' };
  const bar = ctx.ui.processing();
  let job: Job;
  try {
    job = await followJob(ctx.api, jobId, { mode: ctx.settings.events, onStage: (s, f) => bar.stage(s, f), onNote: (line) => ctx.ui.info(line) });
  } catch (err) {
    bar.stop();
    throw err;
  }
  bar.finish(job.status);
  if (job.status === 'completed') return job;
  ctx.book.finish(jobId);
  if (job.status === 'failed') {
    const refunded = job.payment_status === 'refunded' ? ' (the payment is refunded)' : '';
    throw new CliError(EXIT.jobFailed, `job ${jobId} failed: ${job.error_message ?? 'no reason given'}${refunded}`);
  }
  throw new CliError(EXIT.jobFailed, `job ${jobId} was deleted (expired) before it completed`);
}
