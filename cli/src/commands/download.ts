import { resolve } from 'node:path';
import { ACTIVE, type Job } from '../api-types.ts';
import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT, usageError } from '../errors.ts';
import { getJob } from '../follow.ts';
import { stemOf } from '../media.ts';
import { downloadOutput, outputFileName } from '../outputs.ts';
import { resolveJobRef } from '../state.ts';
import { followToCompletion } from './follow-and-check.ts';

/** `cutroom download <job> [--role r] [--format f] [-o dir]`: waits for a running job, then writes its outputs. */
export async function downloadCommand(ctx: Ctx, cmd: Extract<Command, { name: 'download' }>): Promise<void> {
  const id = resolveJobRef(ctx.book.all(), cmd.job);
  let job: Job = await getJob(ctx.api, id);
  if ((ACTIVE as readonly string[]).includes(job.status)) {
    ctx.ui.info(`job ${id} is ${job.status}: waiting for it`);
    job = await followToCompletion(ctx, id);
  }
  if (job.status === 'failed') throw new CliError(EXIT.jobFailed, `job ${id} failed${job.error_message ? `: ${job.error_message}` : ''}: nothing to download`);
  if (job.status !== 'completed')
    throw new CliError(EXIT.service, `job ${id} is ${job.status}: it has no outputs yet`, `see \`cutroom status ${id.slice(0, 8)}\``);
  const outputs = (job.outputs ?? []).filter((o) => !cmd.role || o.role === cmd.role);
  if (cmd.role && outputs.length === 0) {
    throw usageError(`job ${id} has no "${cmd.role}" output`, `its outputs: ${(job.outputs ?? []).map((o) => o.role).join(', ') || 'none'}`);
  }
  if (cmd.format && !outputs.some((o) => o.role === 'transcript')) throw usageError('--format applies to the transcript, and this download has none');
  ctx.current = { jobId: id, phase: 'download' };
  const dir = resolve(cmd.outDir ?? '.');
  const stem = stemOf(job.original_filename);
  for (const o of outputs) {
    // An output published elsewhere (a video host) has no file here: print where it is.
    if (o.external_url && !o.content_type) {
      ctx.out(`${o.role.padEnd(11)}${o.external_url}`);
      continue;
    }
    const format = o.role === 'transcript' ? cmd.format : undefined;
    const path = await downloadOutput(ctx, job, o.role, format, dir, outputFileName(stem, o.role, o.content_type, format));
    ctx.out(`${o.role.padEnd(11)}${path}`);
  }
}
