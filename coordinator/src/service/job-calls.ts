import type { CreateJobRequest, CreateJobResponse, Job, JobList, ListJobsQuery } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import { createJob } from '../jobs/create-job.ts';
import { listSessionJobs } from '../jobs/job-list.ts';
import { describeJob } from '../jobs/job-view.ts';
import { payIfDue } from '../jobs/pay-job.ts';
import { processJob, requireDerivativeJob } from '../jobs/process-job.ts';
import { completeUpload, getUploadUrl, requireUploadJob } from '../jobs/upload.ts';
import { refuseUploadOfUrlJob, startUrlJob } from '../jobs/url-source.ts';
import { sourceUrlOf } from '../job-types/upload-common.ts';
import type { JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { checkoutFor } from '../payments/checkout.ts';
import { jobCreatorOf, jobForGatedCall, ownedJob, sessionOf } from './caller.ts';
import { paymentInputOf, type Credentials } from './credentials.ts';

/** A result, with the payment receipt (protocol headers; empty when nothing was paid in this call). */
export interface Served<T> {
  value: T;
  receipt: Record<string, string>;
}

/** Create a job of any available type (the type's definition decides fields, price and input). */
export async function createJobCall(ctx: Ctx, creds: Credentials, req: CreateJobRequest): Promise<Served<CreateJobResponse>> {
  const created = await createJob(ctx, await jobCreatorOf(ctx, creds), req);
  return { value: created.body, receipt: created.receipt };
}

/** The job with fresh download URLs on its outputs. */
export async function getJobCall(ctx: Ctx, creds: Credentials, jobId: string): Promise<Job> {
  return describeJob(ctx, await ownedJob(ctx, creds, jobId));
}

/** The caller's session's jobs, newest first, one page (jobs/job-list.ts): 401 without a session. */
export async function listJobsCall(ctx: Ctx, creds: Credentials, query: ListJobsQuery): Promise<JobList> {
  return listSessionJobs(ctx.db, (await sessionOf(ctx, creds)).id, query);
}

/** A job that expired unpaid (or never uploaded) is gone: refused before the payment gate could charge for it. */
function refuseExpired(job: JobRow): void {
  if (job.status === 'deleted') throw new AppError('conflict', `job ${job.id} has expired or was deleted (status deleted); create a new job`);
}

/** A presigned upload URL; takes the payment first while the job is unpaid (402 without a credential). */
export async function uploadUrlCall(ctx: Ctx, creds: Credentials, jobId: string): Promise<Served<{ job_id: string; upload_url: string }>> {
  const job = await jobForGatedCall(ctx, creds, jobId);
  requireUploadJob(job);
  refuseUploadOfUrlJob(job);
  refuseExpired(job);
  const paid = await payIfDue(ctx, job, paymentInputOf(ctx, creds));
  return { value: await getUploadUrl(ctx, paid.job), receipt: paid.receipt };
}

/** Verifies the upload and queues the job; takes the payment first while the job is unpaid. */
export async function completeUploadCall(ctx: Ctx, creds: Credentials, jobId: string): Promise<Served<{ job_id: string; status: 'processing' }>> {
  const job = await jobForGatedCall(ctx, creds, jobId);
  requireUploadJob(job);
  refuseUploadOfUrlJob(job);
  refuseExpired(job);
  const paid = await payIfDue(ctx, job, paymentInputOf(ctx, creds));
  return { value: await completeUpload(ctx, paid.job), receipt: paid.receipt };
}

/** Pays for (402 while unpaid) and starts a no-upload derivative, or a job whose media is fetched from its source_url, in one call. */
export async function processCall(ctx: Ctx, creds: Credentials, jobId: string): Promise<Served<{ job_id: string; status: 'processing' }>> {
  const job = await jobForGatedCall(ctx, creds, jobId);
  // Media by URL: process starts the agent's fetch (jobs/url-source.ts).
  if (sourceUrlOf(job) !== null) return startUrlJob(ctx, job, paymentInputOf(ctx, creds));
  requireDerivativeJob(job);
  return processJob(ctx, job, paymentInputOf(ctx, creds));
}

/** The job's hosted card checkout, created on first use. */
export async function checkoutCall(ctx: Ctx, creds: Credentials, jobId: string) {
  const job = await ownedJob(ctx, creds, jobId);
  refuseExpired(job);
  return checkoutFor(ctx, job);
}
