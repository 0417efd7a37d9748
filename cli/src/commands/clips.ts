import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { deliver } from './deliver.ts';
import { runUploadJob } from './upload-flow.ts';

/** `cutroom clips <file> [--query q]`: a find_clips job; the ranked candidates printed, clips JSON and transcript written. */
export async function clipsCommand(ctx: Ctx, cmd: Extract<Command, { name: 'clips' }>): Promise<void> {
  const extra: Record<string, string> = {};
  if (cmd.query) extra.query = cmd.query.trim();
  if (cmd.language) extra.language = cmd.language;
  const { job, record } = await runUploadJob(ctx, { jobType: 'find_clips', opts: cmd, extra });
  await deliver(ctx, job, record);
}
