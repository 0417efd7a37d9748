import type { Job } from '../api-types.ts';
import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT, usageError } from '../errors.ts';
import { getJob } from '../follow.ts';
import { type JobRecord, resolveJobRef } from '../state.ts';
import { continueDerivative } from './cut.ts';
import { deliver } from './deliver.ts';
import { continueUploadJob } from './upload-flow.ts';

const STAGE_TEXT: Record<JobRecord['stage'], string> = { created: 'not paid', paid: 'upload not completed', uploaded: 'processing', done: 'done' };

/** `cutroom resume`: lists the unfinished jobs of this service; `cutroom resume <job>` continues one. */
export async function resumeCommand(ctx: Ctx, cmd: Extract<Command, { name: 'resume' }>): Promise<void> {
  if (cmd.job) return continueRecorded(ctx, resolveJobRef(ctx.book.all(), cmd.job), cmd.limitRate);
  const open = ctx.book.all().filter((r) => r.stage !== 'done' && r.url === ctx.api.base);
  const rows: string[] = [];
  for (const r of open) {
    const job = await liveJob(ctx, r);
    if (!job) continue;
    const what = r.file?.path ?? `cut of ${r.source_job_id?.slice(0, 8)}`;
    rows.push(`${r.job_id.slice(0, 8)}  ${r.job_type.padEnd(21)} ${job.status.padEnd(16)} ${STAGE_TEXT[r.stage].padEnd(20)} ${what}`);
  }
  if (rows.length === 0) {
    ctx.out(`nothing to resume on ${ctx.api.base}`);
    return;
  }
  ctx.out(`${'job'.padEnd(8)}  ${'type'.padEnd(21)} ${'status'.padEnd(16)} ${'here'.padEnd(20)} file`);
  for (const row of rows) ctx.out(row);
  ctx.out('');
  ctx.out('continue one with: cutroom resume <job>   (or run its original command again)');
}

/** The job as the service has it now; null (and the record closed) when it failed, expired or is not reachable with this session. */
async function liveJob(ctx: Ctx, r: JobRecord): Promise<Job | null> {
  try {
    const job = await getJob(ctx.api, r.job_id);
    if (job.status !== 'failed' && job.status !== 'deleted') return job;
  } catch (err) {
    if (!(err instanceof CliError && (err.httpStatus === 403 || err.httpStatus === 404))) throw err;
  }
  ctx.book.finish(r.job_id);
  return null;
}

async function continueRecorded(ctx: Ctx, jobId: string, limitRate: number | undefined): Promise<void> {
  const record = ctx.book.get(jobId);
  if (!record) throw usageError(`job ${jobId} was not started from this machine: use \`cutroom status\` or \`cutroom download\``);
  if (record.url !== ctx.api.base) throw usageError(`job ${jobId} is on ${record.url}: run with --url ${record.url}`);
  const job = await getJob(ctx.api, jobId);
  if (job.status === 'failed' || job.status === 'deleted') {
    ctx.book.finish(jobId);
    throw new CliError(EXIT.jobFailed, `job ${jobId} ${job.status === 'failed' ? `failed: ${job.error_message ?? 'no reason given'}` : 'expired'}`);
  }
  ctx.ui.info(`continuing job ${jobId} (${job.status})`);
  if (record.file) {
    const done = await continueUploadJob(ctx, record, job, limitRate);
    return deliver(ctx, done.job, done.record);
  }
  return deliver(ctx, await continueDerivative(ctx, record, job), record);
}
