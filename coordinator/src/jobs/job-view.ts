import { asc, eq } from 'drizzle-orm';
import type { Job, JobOutput } from '@cutroom/shared/api';
import type { Ctx } from '../context.ts';
import { jobOutputs } from '../db/schema.ts';
import type { JobRow } from './job-access.ts';

type OutputRow = typeof jobOutputs.$inferSelect;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const EXTENSIONS: Record<string, string> = { 'application/x-subrip': 'srt', 'application/json': 'json', 'video/mp4': 'mp4' };

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

async function toOutput(ctx: Ctx, job: JobRow, o: OutputRow): Promise<JobOutput> {
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
    role: o.role,
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

/** The spec's Job resource, with fresh presigned URLs on every output. */
export async function describeJob(ctx: Ctx, job: JobRow): Promise<Job> {
  const outputs = job.status === 'deleted' ? [] : await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, job.id)).orderBy(asc(jobOutputs.role));
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
    bundle_job_id: job.bundleJobId,
    expires_at: iso(job.expiresAt),
    outputs: await Promise.all(outputs.map((o) => toOutput(ctx, job, o))),
    progress: job.progress ?? null,
    ...(encoderOf(job) && { encoder: encoderOf(job)! }),
  };
}
