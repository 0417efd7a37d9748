import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/database.ts';
import { jobs } from '../db/schema.ts';
import type { BlobWriteCheck, BlobWriteVerdict } from '../storage/local-blob-routes.ts';
import { parseJobKey } from './job-access.ts';
import { isActive } from './transitions.ts';

const allowed: BlobWriteVerdict = { allowed: true };

/**
 * The local store's check before (and after) a presigned PUT writes: a job's upload only while
 * the job is `uploading`, an attempt's outputs only while that attempt holds the job. Keys outside
 * `jobs/` are not ours to judge. (S3 cannot ask; there the upload is committed by a move and
 * outputs are per attempt, so a late write changes nothing that is read.)
 */
export function jobBlobWriteCheck(db: DbOrTx): BlobWriteCheck {
  return async (key) => {
    const parsed = parseJobKey(key);
    if (!parsed) return allowed;
    const [job] = await db.select({ status: jobs.status, currentAttemptId: jobs.currentAttemptId }).from(jobs).where(eq(jobs.id, parsed.jobId)).limit(1);
    if (!job) return { allowed: false, status: 404, message: `job ${parsed.jobId} does not exist` };
    switch (parsed.kind) {
      // `source` is only ever written through a URL issued before uploads were committed by a move.
      case 'upload':
      case 'source':
        if (job.status === 'uploading') return allowed;
        return { allowed: false, status: 409, message: `the upload of job ${parsed.jobId} is closed (status ${job.status}); nothing was stored` };
      case 'output':
        if (isActive(job.status) && job.currentAttemptId === parsed.attemptId) return allowed;
        return { allowed: false, status: 409, message: `attempt ${parsed.attemptId} no longer holds job ${parsed.jobId}: its outputs are not accepted` };
      case 'other':
        return { allowed: false, status: 409, message: `no upload is open for ${key}` };
    }
  };
}
