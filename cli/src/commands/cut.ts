import { resolve } from 'node:path';
import { errorFrom } from '../api-client.ts';
import { ACTIVE, type CreateJobResponse, type Job } from '../api-types.ts';
import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT, usageError } from '../errors.ts';
import { getJob } from '../follow.ts';
import { stemOf } from '../media.ts';
import { callPaid } from '../pay.ts';
import { findUnfinished, type JobRecord, resolveJobRef } from '../state.ts';
import { deliver } from './deliver.ts';
import { followToCompletion } from './follow-and-check.ts';

type CutCommand = Extract<Command, { name: 'cut' }>;

/**
 * `cutroom cut <job> --start S --end S [--vertical]`: an extract_clip (or extract_vertical_clip)
 * job cut from the parent's stored source, paid at /process, written as an mp4.
 */
export async function cutCommand(ctx: Ctx, cmd: CutCommand): Promise<void> {
  const parentId = resolveJobRef(ctx.book.all(), cmd.job);
  const parent = await getJob(ctx.api, parentId);
  if (parent.status !== 'completed')
    throw usageError(`job ${parentId} is ${parent.status}: cut from a completed job`, `see \`cutroom status ${parentId.slice(0, 8)}\``);
  const jobType = cmd.vertical ? 'extract_vertical_clip' : 'extract_clip';
  const window = cmd.vertical
    ? { start: cmd.start, end: cmd.end, ...(cmd.profile ? { profile: cmd.profile } : {}), ...(cmd.aspect ? { aspect: cmd.aspect } : {}) }
    : { segments: [{ start: cmd.start, end: cmd.end }] };
  const requestKey = JSON.stringify(window);
  const probe = { url: ctx.api.base, job_type: jobType, request_key: requestKey, source_job_id: parentId };
  const found = findUnfinished(ctx.book.all(), probe);
  let record: JobRecord | undefined;
  let job: Job | undefined;
  if (found) {
    job = await getJob(ctx.api, found.job_id).catch((err: unknown) => {
      if (err instanceof CliError && (err.httpStatus === 403 || err.httpStatus === 404)) return undefined;
      throw err;
    });
    if (job && job.status !== 'failed' && job.status !== 'deleted') {
      record = found;
      ctx.ui.info(`continuing job ${found.job_id} (${job.status})`);
    } else ctx.book.finish(found.job_id);
  }
  if (!record || !job) {
    const created = await ctx.api.json<CreateJobResponse>('POST', '/api/v1/jobs', 'creating the cut', {
      json: { job_type: jobType, source_job_id: parentId, ...window },
    });
    const name = `${stemOf(parent.original_filename)}.${cmd.vertical ? 'vertical' : 'clip'}-${cmd.start}-${cmd.end}`;
    record = {
      ...probe,
      job_id: created.job_id,
      created_at: new Date().toISOString(),
      stage: 'created',
      deliver: { out_dir: resolve(cmd.outDir ?? '.'), name },
    };
    ctx.book.put(record);
    ctx.ui.info(`job ${created.job_id} (${jobType}, ${cmd.start}-${cmd.end} s of ${parentId.slice(0, 8)}) created`);
    job = await getJob(ctx.api, created.job_id);
  }
  await deliver(ctx, await continueDerivative(ctx, record, job), record);
}

/** Pays for and starts a derivative at /process (when it has not started), then follows it. */
export async function continueDerivative(ctx: Ctx, record: JobRecord, job: Job): Promise<Job> {
  const id = record.job_id;
  ctx.current = { jobId: id, phase: 'payment' };
  if (job.status === 'pending') {
    const res = await callPaid(
      { api: ctx.api, settings: ctx.settings, ui: ctx.ui, jobId: id },
      (headers) => ctx.api.send('POST', `/api/v1/jobs/${id}/process`, { headers }),
      'starting the cut',
    );
    if (!res.ok) throw await errorFrom(res, 'starting the cut');
    await res.body?.cancel();
    ctx.book.patch(id, { stage: 'uploaded' });
  } else if (job.status !== 'completed' && !(ACTIVE as readonly string[]).includes(job.status)) {
    throw new CliError(EXIT.service, `job ${id} cannot continue from status ${job.status}`);
  }
  return job.status === 'completed' ? getJob(ctx.api, id) : followToCompletion(ctx, id);
}
