import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { getJob } from '../follow.ts';
import { renderJob } from '../render.ts';
import { resolveJobRef } from '../state.ts';

/** `cutroom status <job> [--json]`: exit 1 when the job failed. */
export async function statusCommand(ctx: Ctx, cmd: Extract<Command, { name: 'status' }>): Promise<number> {
  const job = await getJob(ctx.api, resolveJobRef(ctx.book.all(), cmd.job));
  if (cmd.json) ctx.out(JSON.stringify(job, null, 2));
  else for (const line of renderJob(job)) ctx.out(line);
  if (job.status === 'failed') {
    if (cmd.json) return EXIT.jobFailed;
    throw new CliError(EXIT.jobFailed, `job ${job.job_id} failed${job.error_message ? `: ${job.error_message}` : ''}`);
  }
  return EXIT.ok;
}
