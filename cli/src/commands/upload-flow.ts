import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { errorFrom } from '../api-client.ts';
import { ACTIVE, type CreateJobResponse, type Job } from '../api-types.ts';
import type { TranscriptFormat, UploadOptions } from '../args.ts';
import type { Ctx } from '../context.ts';
import { CliError, EXIT, usageError } from '../errors.ts';
import { getJob } from '../follow.ts';
import { contentTypeOf, SUPPORTED_EXTENSIONS } from '../media.ts';
import { callPaid } from '../pay.ts';
import { findUnfinished, type JobRecord } from '../state.ts';
import { putFile } from '../upload.ts';
import { followToCompletion } from './follow-and-check.ts';

export type UploadJobType = 'transcribe' | 'summarize' | 'find_clips';

export interface UploadJobSpec {
  jobType: UploadJobType;
  opts: UploadOptions;
  /** Request fields besides filename and content_type (query, language). */
  extra: Record<string, string>;
  format?: TranscriptFormat;
}

/** The file as it is now: absolute path, size, mtime (a usage error when it cannot be uploaded). */
export function inspectFile(file: string): { path: string; size: number; mtime_ms: number } {
  const path = resolve(file);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (err) {
    throw new CliError(EXIT.usage, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (!st.isFile()) throw new CliError(EXIT.usage, `${file} is not a file`);
  if (st.size === 0) throw new CliError(EXIT.usage, `${file} is empty`);
  return { path, size: st.size, mtime_ms: Math.trunc(st.mtimeMs) };
}

/**
 * An upload job from start to completion: finds this command's unfinished job for the same
 * unchanged file (and continues it: no second job, no second payment) or creates one, then pays,
 * uploads, completes the upload and follows the processing. Returns the completed job and its record.
 */
export async function runUploadJob(ctx: Ctx, spec: UploadJobSpec): Promise<{ job: Job; record: JobRecord }> {
  const file = inspectFile(spec.opts.file);
  const contentType = spec.opts.contentType ?? contentTypeOf(file.path);
  if (!contentType)
    throw new CliError(EXIT.usage, `cannot tell the media type of ${basename(file.path)}: use --content-type (accepted: ${SUPPORTED_EXTENSIONS.join(', ')})`);
  const requestKey = JSON.stringify(spec.extra);
  const found = findUnfinished(ctx.book.all(), { url: ctx.api.base, job_type: spec.jobType, request_key: requestKey, file });
  if (found) {
    const existing = await reusable(ctx, found);
    if (existing) {
      ctx.book.patch(found.job_id, { deliver: { ...found.deliver, format: spec.format, out_dir: outDir(spec.opts.outDir, file.path) } });
      return continueUploadJob(ctx, ctx.book.get(found.job_id)!, existing, spec.opts.limitRate);
    }
  }
  const created = await ctx.api.json<CreateJobResponse>('POST', '/api/v1/jobs', 'creating the job', {
    json: { job_type: spec.jobType, filename: basename(file.path), content_type: contentType, ...spec.extra },
  });
  const record: JobRecord = {
    job_id: created.job_id,
    job_type: spec.jobType,
    url: ctx.api.base,
    created_at: new Date().toISOString(),
    file: { ...file, content_type: contentType },
    request_key: requestKey,
    stage: created.payment_status === 'paid' ? 'paid' : 'created',
    deliver: { format: spec.format, out_dir: outDir(spec.opts.outDir, file.path) },
  };
  ctx.book.put(record);
  ctx.ui.info(`job ${created.job_id} (${spec.jobType}) created`);
  return continueUploadJob(ctx, record, await getJob(ctx.api, created.job_id), spec.opts.limitRate, created.checkout_url);
}

const outDir = (flag: string | undefined, input: string): string => resolve(flag ?? dirname(input));

/** The recorded job, if it can still be continued (a failed, deleted or foreign one is closed and forgotten). */
async function reusable(ctx: Ctx, record: JobRecord): Promise<Job | null> {
  let job: Job;
  try {
    job = await getJob(ctx.api, record.job_id);
  } catch (err) {
    if (err instanceof CliError && (err.httpStatus === 403 || err.httpStatus === 404)) {
      ctx.book.finish(record.job_id);
      return null;
    }
    throw err;
  }
  if (job.status === 'failed' || job.status === 'deleted') {
    ctx.book.finish(record.job_id);
    ctx.ui.info(`the earlier job ${record.job_id} for this file ${job.status === 'failed' ? 'failed' : 'expired'}: starting a new one`);
    return null;
  }
  const what =
    job.status === 'pending' ? 'not paid yet' : job.status === 'uploading' ? 'upload not completed' : job.status === 'completed' ? 'completed' : 'processing';
  ctx.ui.info(`continuing job ${job.job_id} (${what}), created ${record.created_at}`);
  return job;
}

/**
 * Takes a recorded upload job from wherever it stands to completed: pay (402 → wallet or
 * checkout), upload the whole file to a fresh presigned URL, complete the upload, follow it.
 */
export async function continueUploadJob(
  ctx: Ctx,
  record: JobRecord,
  job: Job,
  limitRate: number | undefined,
  checkoutUrl?: string,
): Promise<{ job: Job; record: JobRecord }> {
  const { api, book } = ctx;
  const id = record.job_id;
  ctx.current = { jobId: id, phase: 'payment' };
  if (job.status === 'pending' || job.status === 'uploading') {
    const file = record.file!;
    const now = inspectFile(file.path);
    if (now.size !== file.size || now.mtime_ms !== file.mtime_ms) {
      throw usageError(`${file.path} changed since job ${id} was created`, 'run the command again to start a new job for the new file');
    }
    const res = await callPaid(
      { api, settings: ctx.settings, ui: ctx.ui, jobId: id, checkoutUrl },
      (headers) => api.send('GET', `/api/v1/jobs/${id}/upload-url`, { headers }),
      'asking for the upload URL',
    );
    if (!res.ok) throw await errorFrom(res, 'asking for the upload URL');
    const { upload_url } = (await res.json()) as { upload_url: string };
    book.patch(id, { stage: 'paid' });
    ctx.current.phase = 'upload';
    const bar = ctx.ui.upload(file.size);
    try {
      await putFile(upload_url, file.path, { size: file.size, contentType: file.content_type, limitRate, onProgress: (n) => bar.update(n) });
    } catch (err) {
      bar.stop();
      throw err;
    }
    bar.finish();
    await api.json('POST', `/api/v1/jobs/${id}/complete-upload`, 'completing the upload');
    book.patch(id, { stage: 'uploaded' });
  } else if (!(ACTIVE as readonly string[]).includes(job.status) && job.status !== 'completed') {
    throw new CliError(EXIT.service, `job ${id} cannot continue from status ${job.status}`);
  }
  const done = job.status === 'completed' ? await getJob(api, id) : await followToCompletion(ctx, id);
  return { job: done, record: book.get(id) ?? record };
}
