import { and, eq } from 'drizzle-orm';
import { SummaryV1 } from '@cutroom/shared/summary/summary-v1';
import type { Ctx } from '../context.ts';
import { jobOutputs, jobs, type publishWorkflows, type JobRow } from '../db/schema.ts';
import { sourceKeyOf } from '../jobs/job-access.ts';
import type { PublishParams } from './publish-job.ts';
import type { VideoMetadata } from './video-host-api.ts';

/** The caption track's name on the host: how a resumed run recognizes the track an earlier run added. */
export const CAPTION_TRACK_NAME = 'cutroom transcript';

/** A workflow row as the worker leased it. */
export type WorkflowRow = typeof publishWorkflows.$inferSelect;

/** The parent whose stored source is published, and the job's own settings. */
export async function publishInputs(ctx: Ctx, job: JobRow): Promise<{ parent: JobRow; params: PublishParams }> {
  if (!job.sourceJobId) throw new Error(`publish job ${job.id} has no parent`);
  const [parent] = await ctx.db.select().from(jobs).where(eq(jobs.id, job.sourceJobId)).limit(1);
  if (!parent) throw new Error(`publish job ${job.id}: parent ${job.sourceJobId} is gone`);
  return { parent, params: job.params as unknown as PublishParams };
}

/** An output row of the parent (its storage keys), or null. */
async function outputOf(ctx: Ctx, jobId: string, role: string) {
  const [row] = await ctx.db
    .select()
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, jobId), eq(jobOutputs.role, role)))
    .limit(1);
  return row ?? null;
}

/** m:ss or h:mm:ss, as the host reads chapter timestamps in a description. */
function stamp(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/**
 * A summarize parent's summary as a description: the overview, the key points, and the chapters
 * with their start times (the host turns "0:00 Title" lines into chapters when the first is 0:00).
 */
export function descriptionOfSummary(summary: SummaryV1, maxChars: number): string {
  const parts: string[] = [];
  if (summary.overview) parts.push(summary.overview);
  if (summary.key_points.length) parts.push(summary.key_points.map((k) => `• ${k.text}`).join('\n'));
  if (summary.chapters.length > 1) parts.push(['Chapters', ...summary.chapters.map((c, i) => `${stamp(i === 0 ? 0 : c.start)} ${c.title}`)].join('\n'));
  let text = parts.join('\n\n').replace(/[<>]/g, '');
  if (text.length > maxChars) text = `${text.slice(0, maxChars - 1).replace(/\s+\S*$/, '')}…`;
  return text;
}

/** The video's title, description and privacy as they go to the host. */
export async function metadataOf(ctx: Ctx, parent: JobRow, params: PublishParams): Promise<VideoMetadata> {
  let description = params.description;
  if (description === null && parent.jobType === 'summarize') {
    const out = await outputOf(ctx, parent.id, 'summary');
    if (out?.storageKey) {
      const parsed = SummaryV1.safeParse(JSON.parse((await ctx.blobs.getBytes(out.storageKey)).toString('utf8')));
      if (parsed.success) description = descriptionOfSummary(parsed.data, 5000);
    }
  }
  return { title: params.title, description: description ?? '', privacyStatus: params.privacy_status };
}

/** The parent's SRT (its transcript output), and the language to label it with. */
export async function captionsOf(ctx: Ctx, parent: JobRow): Promise<{ srt: string; language: string } | null> {
  const out = await outputOf(ctx, parent.id, 'transcript');
  if (!out?.storageKey) return null;
  const srt = (await ctx.blobs.getBytes(out.storageKey)).toString('utf8');
  // A recording with no speech has an SRT without a cue: there is no caption track to add.
  if (!srt.includes('-->')) return null;
  const language = typeof parent.media?.['language'] === 'string' ? (parent.media['language'] as string) : 'en';
  return { srt, language };
}

/** The stored source's size and key. */
export async function sourceOf(ctx: Ctx, parent: JobRow): Promise<{ key: string; bytes: number; contentType: string } | null> {
  const key = sourceKeyOf(parent.id);
  const head = await ctx.blobs.head(key);
  return head ? { key, bytes: head.size, contentType: parent.contentType } : null;
}

/** Bytes [start, end] of a stored object, read through a presigned GET with a Range (S3 and local disk alike). */
export async function readRange(ctx: Ctx, key: string, start: number, end: number): Promise<Buffer> {
  const url = await ctx.blobs.presignGet(key, { expiresInSeconds: 600 });
  const res = await fetch(url, { headers: { range: `bytes=${start}-${end}` } });
  if (res.status !== 206 && res.status !== 200) throw new Error(`reading ${key} bytes ${start}-${end}: storage answered ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  // A server that ignores Range answers the whole object: take the slice asked for.
  return res.status === 200 ? body.subarray(start, end + 1) : body;
}
