import { and, eq, inArray } from 'drizzle-orm';
import type { JobTypeFacts } from '@cutroom/shared/job-types';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { Ctx } from '../context.ts';
import type { DbOrTx } from '../db/database.ts';
import { jobOutputs, jobs, type JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { BlobNotFoundError } from '../storage/blob-store.ts';
import { ACTIVE_STATUSES } from './transitions.ts';

/** What a completed parent's probe recorded (jobs.media), as far as derivatives read it. */
export interface ParentMedia {
  duration: number;
  hasVideo: boolean;
}

export function parentMediaOf(parent: JobRow): ParentMedia {
  const media = parent.media ?? {};
  return {
    duration: parent.durationSeconds ?? (typeof media['duration_seconds'] === 'number' ? media['duration_seconds'] : 0),
    hasVideo: media['has_video'] === true || (parent.mediaKind === 'video' && media['has_video'] === undefined),
  };
}

const typesText = (types: readonly string[]): string => types.join(', ').replace(/, ([^,]*)$/, ' or $1');

/**
 * The parent a derivative cuts from, checked in the order a caller can act on: it exists (404),
 * is theirs (403), is a type this derivative takes (400), has finished (409: wait; failed: 409),
 * still holds its source and is within its retention (410: gone for good, upload again).
 * Used at creation and again at /process before any payment, so an expired parent costs nothing.
 */
export async function usableParent(ctx: Ctx, childType: string, facts: JobTypeFacts, sessionId: string, parentId: string): Promise<JobRow> {
  if (facts.input.kind !== 'parent') throw new Error(`${childType} takes no parent`);
  const [parent] = await ctx.db.select().from(jobs).where(eq(jobs.id, parentId)).limit(1);
  if (!parent) throw new AppError('not_found', `source_job_id ${parentId} not found: name a ${typesText(facts.input.parentTypes)} job of this session`);
  if (parent.sessionId !== sessionId)
    throw new AppError('forbidden', `source_job_id ${parentId} belongs to another session: cut only from jobs created with this session token`);
  if (!facts.input.parentTypes.includes(parent.jobType)) {
    throw new AppError(
      'invalid_request',
      `source_job_id ${parentId} is a ${parent.jobType} job; ${childType} cuts from a ${typesText(facts.input.parentTypes)} job (its stored source)`,
    );
  }
  const now = ctx.clock.now();
  if (parent.status === 'deleted' || (parent.expiresAt && parent.expiresAt <= now && parent.status === 'completed')) {
    throw new AppError(
      'source_gone',
      `source_job_id ${parentId} expired${parent.expiresAt ? ` at ${parent.expiresAt.toISOString()}` : ''} and its source was deleted: upload the recording again in a new job`,
    );
  }
  if (parent.status === 'failed')
    throw new AppError('conflict', `source_job_id ${parentId} failed (${parent.errorMessage ?? 'no result'}); it holds no usable source`);
  if (parent.status !== 'completed') {
    throw new AppError(
      'conflict',
      `source_job_id ${parentId} is not completed yet (status ${parent.status}): poll GET /jobs/${parentId} until it is, then create this job`,
    );
  }
  if (!parent.sourceKey || parent.sourceDeletedAt) {
    throw new AppError(
      'source_gone',
      `the source of source_job_id ${parentId} was deleted (DELETE /jobs/${parentId}/source): upload the recording again in a new job`,
    );
  }
  return parent;
}

/** Storage key of a parent's transcript v2 (the `transcript` role's words file), or null when that output is gone. */
export async function parentWordsKey(db: DbOrTx, parentId: string): Promise<string | null> {
  const [out] = await db
    .select({ meta: jobOutputs.meta })
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, parentId), eq(jobOutputs.role, 'transcript')))
    .limit(1);
  return out?.meta['words_key'] ?? null;
}

/**
 * A parent's transcript v2 as stored (validated when its job completed), or null when its
 * transcript output was deleted. For derivatives whose request is checked against the words.
 */
export async function parentTranscriptOf(ctx: Ctx, parentId: string): Promise<TranscriptV2 | null> {
  const key = await parentWordsKey(ctx.db, parentId);
  if (!key) return null;
  // An output row whose object is already gone (being deleted) is no transcript either.
  const bytes = await ctx.blobs.getBytes(key).catch((err: unknown) => {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  });
  return bytes && TranscriptV2.parse(JSON.parse(bytes.toString('utf8')));
}

/**
 * For types that work from the parent's transcript (needsParentTranscript): refused while the
 * parent has none, at creation (before prepare) and again at /process before any payment.
 */
export function parentTranscriptGone(childType: string, parentId: string): AppError {
  return new AppError(
    'conflict',
    `source_job_id ${parentId} no longer has its transcript output (it was deleted); ${childType} works from the parent's transcript: transcribe the recording again in a new job`,
  );
}

/** Derivatives of `parentId` that are queued or running: while one exists the parent's source must stay. */
export async function activeDerivatives(db: DbOrTx, parentId: string): Promise<string[]> {
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.sourceJobId, parentId), inArray(jobs.status, [...ACTIVE_STATUSES])))
    .limit(5);
  return rows.map((r) => r.id);
}
