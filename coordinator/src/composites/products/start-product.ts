import type { Tx } from '../../db/database.ts';
import type { JobRow } from '../../db/schema.ts';
import { insertJob } from '../../jobs/job-rows.ts';
import { queueAgentJob } from '../../job-types/start-agent-job.ts';
import { transitionJob } from '../../jobs/transition-job.ts';
import { productParams, productSourceKey } from './product-params.ts';

/**
 * Complete-upload of an agent product, in the caller's transaction, after the upload was moved
 * to the find_clips child's source key (upload.ts): the product moves uploading → `analyzing`
 * (it has no agent work of its own and stays there until its last step ends) and its find_clips
 * child is created (parent_job_id = the product, payment_status `paid_by_parent`, the upload as
 * its source) and queued like any uploaded find_clips job (its first stage and a wake-up).
 * Null when the product was no longer uploading (a concurrent call started it, or it expired).
 */
export async function startProduct(tx: Tx, product: JobRow, upload: { size: number }, now: Date): Promise<JobRow | null> {
  const p = productParams(product);
  const row = await transitionJob(tx, {
    jobId: product.id,
    from: 'uploading',
    to: 'analyzing',
    reason: 'upload completed: finding clips',
    now,
    patch: { fileSize: upload.size, expiresAt: null, progress: { stage: 'find_clips', fraction: 0, at: now.toISOString() } },
  });
  if (!row) return null;
  const child = p.find_clips.job_id;
  await insertJob(
    tx,
    {
      id: child,
      jobType: 'find_clips',
      status: 'pending',
      paymentStatus: 'paid_by_parent',
      sessionId: product.sessionId,
      parentJobId: product.id,
      originalFilename: product.originalFilename,
      contentType: product.contentType,
      mediaKind: product.mediaKind,
      priceCents: p.find_clips.price_cents,
      params: p.find_clips.params,
      // Committed already: the caller moved the upload to this key before this transaction.
      sourceKey: productSourceKey(product),
      fileSize: upload.size,
      createdAt: now,
      updatedAt: now,
    },
    now,
  );
  await queueAgentJob(tx, { id: child, jobType: 'find_clips' }, { from: 'pending', now, reason: `started: product ${product.id} uploaded` });
  return row;
}
