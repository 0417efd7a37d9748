import { and, eq } from 'drizzle-orm';
import { TranscriptV2, isTranscriptFormat, renderTranscript, TRANSCRIPT_FORMATS } from '@cutroom/shared/transcript/index';
import type { Ctx } from '../context.ts';
import { jobOutputs } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { loadOwnedJob } from './job-access.ts';
import { attachmentName } from './job-view.ts';

export type DownloadResult = { kind: 'url'; download_url: string; output_id: string } | { kind: 'inline'; body: string; contentType: string };

/**
 * GET /jobs/{id}/outputs/{role}/download. `srt` (or no format) answers a presigned URL; the
 * other transcript formats are rendered from the stored transcript v2 and returned inline.
 */
export async function downloadOutput(
  ctx: Ctx,
  sessionId: string,
  jobId: string,
  role: string,
  format: string | undefined,
  /** `inline`: the SRT too comes back as its text (MCP reads transcripts inline), not as a URL. */
  opts: { inline?: boolean } = {},
): Promise<DownloadResult> {
  if (format !== undefined && !isTranscriptFormat(format)) {
    throw new AppError('invalid_format', `invalid format ${JSON.stringify(format)}; use one of ${TRANSCRIPT_FORMATS.join(', ')}`);
  }
  const job = await loadOwnedJob(ctx.db, jobId, sessionId);
  if (format !== undefined && format !== 'srt' && role !== 'transcript') {
    throw new AppError('invalid_format', `format applies only to the transcript role, not ${role}`);
  }
  const [out] = await ctx.db
    .select()
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, job.id), eq(jobOutputs.role, role)))
    .limit(1);
  if (!out || job.status === 'deleted') {
    throw new AppError('not_found', `job ${job.id} has no output ${role}${job.status === 'completed' ? '' : ` (job status is ${job.status})`}`);
  }
  if ((format === undefined || format === 'srt') && opts.inline && out.storageKey && role === 'transcript') {
    return { kind: 'inline', body: (await ctx.blobs.getBytes(out.storageKey)).toString('utf8'), contentType: 'application/x-subrip' };
  }
  if (format === undefined || format === 'srt') {
    if (!out.storageKey) return { kind: 'url', download_url: out.externalUrl!, output_id: out.id };
    const download_url = await ctx.blobs.presignGet(out.storageKey, {
      expiresInSeconds: ctx.config.PRESIGN_TTL_SECONDS,
      contentType: out.contentType ?? undefined,
      downloadFilename: attachmentName(job, role, out.contentType),
    });
    return { kind: 'url', download_url, output_id: out.id };
  }
  const wordsKey = out.meta['words_key'];
  if (!wordsKey) throw new AppError('not_found', `output ${role} has no word-level transcript`);
  const transcript = TranscriptV2.parse(JSON.parse((await ctx.blobs.getBytes(wordsKey)).toString('utf8')));
  const rendered = renderTranscript(transcript, format);
  return { kind: 'inline', body: rendered.body, contentType: rendered.contentType };
}
