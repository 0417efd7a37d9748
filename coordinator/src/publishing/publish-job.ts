import { and, eq } from 'drizzle-orm';
import { CreateJobRequest } from '@cutroom/shared/api';
import { failureMessage } from '@cutroom/shared/failures';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import type { Tx } from '../db/database.ts';
import { hostConnections, jobs, publishWorkflows } from '../db/schema.ts';
import type { CoordinatorRunDefinition } from '../job-types/entry.ts';
import { failJob } from '../jobs/fail-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { AppError } from '../lib/app-error.ts';
import { requirePublishing } from './connections.ts';

/** The host's own limits on a video's metadata (YouTube Data API v3: title ≤ 100 characters, no angle brackets). */
const HOST_TITLE_MAX = 100;
const ANGLE = /[<>]/;

export type PrivacyStatus = 'private' | 'unlisted' | 'public';

/** What a publish_video job stores in params: what the caller asked for, resolved to what is sent. */
export interface PublishParams {
  title: string;
  description: string | null;
  privacy_status: PrivacyStatus;
}

const bad = (message: string) => new AppError('invalid_request', message);

/** The session's active host connection, or null. */
export async function activeConnectionId(db: Ctx['db'] | Tx, sessionId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: hostConnections.id })
    .from(hostConnections)
    .where(and(eq(hostConnections.sessionId, sessionId), eq(hostConnections.status, 'active')))
    .limit(1);
  return row?.id ?? null;
}

/**
 * publish_video: uploads a completed transcribe or summarize job's stored source to the caller's
 * connected video host account, with the parent's SRT as captions and, for a summarize parent,
 * the summary as the description. Run by the coordinator's publish worker (ADR 0006), not by
 * agents. Created free, paid at /process (1.75 on both rails), like the cuts.
 */
export const publishVideoJob: CoordinatorRunDefinition = {
  type: 'publish_video',
  facts: JOB_TYPES.publish_video,
  request: CreateJobRequest.pick({ source_job_id: true, title: true, description: true, privacy_status: true, thread_id: true }),
  stage: 'publishing',
  prepare(req, parent) {
    if (!parent) throw bad('publish_video needs source_job_id: a completed transcribe or summarize job of your session');
    if (!parent.media.hasVideo) {
      throw bad(`publish_video uploads a video, and job ${parent.job.id} holds audio only: transcribe or summarize a video and publish that`);
    }
    const stem = parent.job.originalFilename.replace(/\.[^.]+$/, '').trim() || 'cutroom video';
    const title = (req.title ?? stem.slice(0, HOST_TITLE_MAX)).trim();
    if (!title) throw bad('title must not be empty');
    if (title.length > HOST_TITLE_MAX) throw bad(`title is ${title.length} characters; the video host takes at most ${HOST_TITLE_MAX}`);
    if (ANGLE.test(title) || (req.description && ANGLE.test(req.description))) {
      throw bad('title and description must not contain < or >: the video host refuses them');
    }
    const params: PublishParams = { title, description: req.description ?? null, privacy_status: req.privacy_status ?? 'private' };
    return {
      originalFilename: `${stem}.publish`,
      contentType: parent.job.contentType,
      mediaKind: null,
      price: priceOf('publish_video', null)!,
      params: { ...params },
    };
  },
  requireConfigured(ctx) {
    requirePublishing(ctx);
  },
  async precheck(ctx, sessionId) {
    requirePublishing(ctx);
    if (!(await activeConnectionId(ctx.db, sessionId))) {
      throw new AppError(
        'conflict',
        'no video host account is connected to this session: connect one first (POST /api/v1/connections/video-host, open its authorize_url in the browser that will consent, press Continue and consent at the host), then publish; nothing was charged',
      );
    }
  },
  /** pending → publishing and its workflow row, in the payment's transaction; no account left by then → failed and refunded. */
  async start(tx, jobId, now, reason, patch) {
    const [job] = await tx.select({ sessionId: jobs.sessionId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
    const row = await transitionJob(tx, { jobId, from: 'pending', to: 'publishing', reason, now, patch: { ...patch, expiresAt: null } });
    if (!row) return null;
    const connectionId = job?.sessionId ? await activeConnectionId(tx, job.sessionId) : null;
    if (!connectionId) {
      const detail = 'the video host account was disconnected before publishing started: connect it again and publish again';
      return failJob(tx, { jobId, now, code: 'publish_auth_revoked', message: failureMessage('publish_auth_revoked', detail), from: ['publishing'] });
    }
    await tx.insert(publishWorkflows).values({ jobId, connectionId, step: 'start', nextRunAt: now, createdAt: now, updatedAt: now });
    return row;
  },
};
