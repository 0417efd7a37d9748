import type { CreateJobRequest } from '@cutroom/shared/api';
import type { PaymentStatus } from '@cutroom/shared/job-types';
import type { Tx } from '../db/database.ts';
import { jobEvents, jobs } from '../db/schema.ts';
import type { PreparedJob } from '../job-types/definition.ts';
import { addMs } from '../lib/clock.ts';

/** How long a created job waits to be paid and uploaded before it expires (open-job-expiry.ts). */
export const OPEN_JOB_TTL_MS = 24 * 3600_000;

/**
 * A new job's row from its prepared fields: pending and unpaid, expiring after OPEN_JOB_TTL_MS
 * when it is never paid, uploaded or processed (open-job-expiry.ts; a paid one is refunded then).
 */
export function newJobRow(id: string, jobType: CreateJobRequest['job_type'], prepared: PreparedJob, now: Date) {
  return {
    id,
    jobType,
    status: 'pending' as const,
    paymentStatus: 'pending' as PaymentStatus,
    originalFilename: prepared.originalFilename,
    contentType: prepared.contentType,
    mediaKind: prepared.mediaKind,
    priceCents: prepared.price.cardCents,
    priceChainUnits: prepared.price.chainUnits == null ? null : BigInt(prepared.price.chainUnits),
    params: prepared.params,
    createdAt: now,
    updatedAt: now,
    expiresAt: addMs(now, OPEN_JOB_TTL_MS),
  };
}

/** Writes a new job row and its `created` event, in the caller's transaction. */
export async function insertJob(tx: Tx, values: typeof jobs.$inferInsert, now: Date): Promise<void> {
  await tx.insert(jobs).values(values);
  await tx.insert(jobEvents).values({ jobId: values.id, fromStatus: null, toStatus: 'pending', reason: 'created', createdAt: now });
}
