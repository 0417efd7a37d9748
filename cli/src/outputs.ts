import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorFrom } from './api-client.ts';
import type { Job } from './api-types.ts';
import type { TranscriptFormat } from './args.ts';
import type { Ctx } from './context.ts';
import { CliError, EXIT } from './errors.ts';
import { extensionOf } from './media.ts';

/** The file extension of a transcript format. */
export function transcriptExtension(format: TranscriptFormat): string {
  return { srt: 'srt', vtt: 'vtt', txt: 'txt', json: 'json', words: 'words.json', edit: 'edit.txt' }[format];
}

/** A role the server named, as part of a file name: letters, digits, `_` and `-` only, so no role (`../x`, `a/b`) leaves the folder. */
const safeRole = (role: string): string => role.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'output';

/** Where an output goes: `<stem>.srt` for the transcript, `<stem>.mp4` for a clip, `<stem>.<role>.<ext>` otherwise (pure). */
export function outputFileName(stem: string, role: string, contentType: string | null, format: TranscriptFormat | undefined): string {
  if (role === 'transcript') return `${stem}.${transcriptExtension(format ?? 'srt')}`;
  if (role === 'clip') return `${stem}.mp4`;
  return `${stem}.${safeRole(role)}.${extensionOf(contentType)}`;
}

/** `dir/name`, refused unless it is a file directly inside `dir` (whatever a caller or a server put in the name). */
export function pathInside(dir: string, name: string): string {
  const path = resolve(dir, name);
  if (dirname(path) !== resolve(dir)) throw new CliError(EXIT.service, `refusing to write ${JSON.stringify(name)}: not a file name inside ${dir}`);
  return path;
}

/**
 * Writes one output of a completed job to `dir/name`. A transcript in a format other than srt is
 * converted by the service and comes inline; anything else comes from a fresh presigned URL.
 */
export async function downloadOutput(ctx: Ctx, job: Job, role: string, format: TranscriptFormat | undefined, dir: string, name: string): Promise<string> {
  const path = pathInside(dir, name);
  mkdirSync(dir, { recursive: true });
  const base = `/api/v1/jobs/${job.job_id}/outputs/${encodeURIComponent(role)}/download`;
  const what = `downloading the ${role} of job ${job.job_id}`;
  if (role === 'transcript' && format && format !== 'srt') {
    const res = await ctx.api.send('GET', `${base}?format=${format}`);
    if (!res.ok) throw await errorFrom(res, what);
    writeFileSync(path, await res.text());
    return path;
  }
  const { download_url } = await ctx.api.json<{ download_url: string }>('GET', base, what);
  const res = await ctx.api.fetch(download_url, {});
  if (!res.ok || !res.body) throw new CliError(EXIT.service, `${what} failed (HTTP ${res.status})`);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(path));
  return path;
}
