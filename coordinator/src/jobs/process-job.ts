import { isUploadJobType } from '@cutroom/shared/job-types';
import type { JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';

/**
 * Starts a no-upload derivative. No derivative type is available yet (creating one is refused),
 * so every job that exists here is upload-based.
 */
export async function processJob(job: JobRow): Promise<{ job_id: string; status: 'processing' }> {
  if (isUploadJobType(job.jobType)) {
    throw new AppError('wrong_endpoint', `job_type ${job.jobType} is upload-based: upload the file, then complete-upload (not process)`, {
      next: { call: 'complete_upload', jobId: job.id },
    });
  }
  throw new AppError('not_implemented_job_type', `job_type ${job.jobType} is not available yet`);
}
