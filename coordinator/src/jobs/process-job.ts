import { isUploadJobType, type JobType } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import { loadOwnedJob } from './job-access.ts';

/**
 * POST /jobs/{id}/process: for no-upload derivatives only. No derivative type is implemented
 * yet (creating one is refused), so every job that exists here is upload-based.
 */
export async function processJob(ctx: Ctx, sessionId: string, jobId: string): Promise<{ job_id: string; status: 'processing' }> {
  const job = await loadOwnedJob(ctx.db, jobId, sessionId);
  if (isUploadJobType(job.jobType as JobType)) {
    throw new AppError('wrong_endpoint', `job_type ${job.jobType} is upload-based: upload the file, then call POST /api/v1/jobs/${job.id}/complete-upload`);
  }
  throw new AppError('not_implemented_job_type', `job_type ${job.jobType} is not available yet`);
}
