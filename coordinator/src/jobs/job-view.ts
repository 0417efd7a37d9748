import { asc, eq, inArray } from 'drizzle-orm';
import type { Job, JobOutput, JobSummary } from '@cutroom/shared/api';
import type { BundleChildSummary, BundleChildView } from '@cutroom/shared/bundles';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs } from '../db/schema.ts';
import type { JobRow } from './job-access.ts';
import { compositeEntryOf } from '../job-types/registry.ts';
import { queueStanding } from './queue-standing.ts';

type OutputRow = typeof jobOutputs.$inferSelect;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The download name's extension by content type (every contract output's type has one: agent-job-types.test.ts). */
export const EXTENSIONS: Readonly<Record<string, string>> = { 'application/x-subrip': 'srt', 'application/json': 'json', 'video/mp4': 'mp4' };

/** A download name like `interview.transcript.srt` from the original filename. */
export function attachmentName(job: JobRow, role: string, contentType: string | null): string {
  const base =
    job.originalFilename
      .replace(/\.[^.]+$/, '')
      .replace(/[^\w.-]+/g, '_')
      .slice(0, 100) || 'output';
  const ext = (contentType && EXTENSIONS[contentType]) ?? 'bin';
  return `${base}.${role}.${ext}`;
}

async function toOutput(ctx: Ctx, job: JobRow, o: OutputRow, role = o.role): Promise<JobOutput> {
  const ttl = ctx.config.PRESIGN_TTL_SECONDS;
  const ct = o.contentType ?? undefined;
  const [download_url, attachment_url] = o.storageKey
    ? await Promise.all([
        ctx.blobs.presignGet(o.storageKey, { expiresInSeconds: ttl, contentType: ct }),
        ctx.blobs.presignGet(o.storageKey, { expiresInSeconds: ttl, contentType: ct, downloadFilename: attachmentName(job, o.role, o.contentType) }),
      ])
    : [o.externalUrl!, o.externalUrl!];
  return {
    output_id: o.id,
    job_id: o.jobId,
    role,
    storage_key: o.storageKey,
    external_url: o.externalUrl,
    content_type: o.contentType,
    download_url,
    attachment_url,
    created_at: o.createdAt.toISOString(),
  };
}

const encoderOf = (job: JobRow): 'libx264' | 'h264_nvenc' | null => {
  const e = job.media?.['encoder'];
  return e === 'libx264' || e === 'h264_nvenc' ? e : null;
};

/**
 * A clip bundle's children, in the order of its `clips`, and their outputs as the bundle's own:
 * each child output appears with its role suffixed by the clip's position (`clip_1`,
 * `subjects_1`, …) and `job_id` naming the child, so one poll of the bundle gives every file.
 * An agent product also shows its find_clips step first (index 0), whose outputs keep their own
 * roles (transcript, clips).
 */
async function bundleParts(ctx: Ctx, job: JobRow, clips: readonly BundleChildSummary[]): Promise<{ children: BundleChildView[]; outputs: JobOutput[] }> {
  const ids = clips.map((c) => c.job_id);
  if (!ids.length) return { children: [], outputs: [] };
  const rows = await ctx.db.select().from(jobs).where(inArray(jobs.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const children = clips.flatMap((c): BundleChildView[] => {
    const r = byId.get(c.job_id);
    const window = c.index === 0 ? { end: r?.durationSeconds ?? 0 } : {};
    return r ? [{ ...c, ...window, job_type: r.jobType, status: r.status, payment_status: r.paymentStatus, error_message: r.errorMessage }] : [];
  });
  if (job.status === 'deleted') return { children, outputs: [] };
  const live = rows.filter((r) => r.status !== 'deleted').map((r) => r.id);
  const outs = live.length ? await ctx.db.select().from(jobOutputs).where(inArray(jobOutputs.jobId, live)) : [];
  const indexOf = new Map(clips.map((c) => [c.job_id, c.index]));
  outs.sort((a, b) => indexOf.get(a.jobId)! - indexOf.get(b.jobId)! || a.role.localeCompare(b.role));
  const roleOf = (o: OutputRow) => (indexOf.get(o.jobId) === 0 ? o.role : `${o.role}_${indexOf.get(o.jobId)}`);
  const outputs = await Promise.all(outs.map((o) => toOutput(ctx, byId.get(o.jobId)!, o, roleOf(o))));
  return { children, outputs };
}

/** A job's own fields, as the Job resource and the job list (`GET /jobs`) show them. */
export function jobSummaryOf(job: JobRow): JobSummary {
  return {
    job_id: job.id,
    session_id: job.sessionId,
    job_type: job.jobType,
    status: job.status,
    payment_status: job.paymentStatus,
    original_filename: job.originalFilename,
    content_type: job.contentType,
    file_size: job.fileSize,
    duration_seconds: job.durationSeconds,
    error_message: job.errorMessage,
    created_at: job.createdAt.toISOString(),
    completed_at: iso(job.completedAt),
    updated_at: iso(job.updatedAt),
    source_job_id: job.sourceJobId,
    // The spec's name for the parent composite.
    bundle_job_id: job.parentJobId,
    expires_at: iso(job.expiresAt),
  };
}

/**
 * The spec's Job resource, with fresh presigned URLs on every output. A clip bundle or an agent
 * product adds `children` (shared/src/api.ts Job) and shows its children's outputs.
 */
export async function describeJob(ctx: Ctx, job: JobRow): Promise<Job & { children?: BundleChildView[] }> {
  const composite = compositeEntryOf(job.jobType);
  const bundle = composite ? await bundleParts(ctx, job, composite.childList(job)) : null;
  const outputs =
    job.status === 'deleted' || bundle ? [] : await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, job.id)).orderBy(asc(jobOutputs.role));
  const queue = await queueStanding(ctx, job);
  return {
    ...jobSummaryOf(job),
    outputs: bundle ? bundle.outputs : await Promise.all(outputs.map((o) => toOutput(ctx, job, o))),
    progress: job.progress ?? null,
    ...(encoderOf(job) && { encoder: encoderOf(job)! }),
    ...(queue && { queue }),
    ...(bundle && { children: bundle.children }),
  };
}
