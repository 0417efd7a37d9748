import type { Ctx } from '../context.ts';
import { deleteOutput, deleteSource } from '../jobs/deletions.ts';
import { downloadOutput, type DownloadResult } from '../jobs/downloads.ts';
import { sessionOf } from './caller.ts';
import type { Credentials } from './credentials.ts';

/** An output as a presigned URL, or a transcript rendered inline in the asked format. */
export async function downloadCall(
  ctx: Ctx,
  creds: Credentials,
  jobId: string,
  role: string,
  format: string | undefined,
  opts: { inline?: boolean } = {},
): Promise<DownloadResult> {
  return downloadOutput(ctx, (await sessionOf(ctx, creds)).id, jobId, role, format, opts);
}

export async function deleteSourceCall(ctx: Ctx, creds: Credentials, jobId: string) {
  return deleteSource(ctx, (await sessionOf(ctx, creds)).id, jobId);
}

export async function deleteOutputCall(ctx: Ctx, creds: Credentials, jobId: string, role: string) {
  return deleteOutput(ctx, (await sessionOf(ctx, creds)).id, jobId, role);
}
