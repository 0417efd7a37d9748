import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { deliver } from './deliver.ts';
import { runUploadJob } from './upload-flow.ts';

/** `cutroom transcribe <file> [--format F]`: the transcript next to the file (or in -o dir). */
export async function transcribeCommand(ctx: Ctx, cmd: Extract<Command, { name: 'transcribe' }>): Promise<void> {
  const extra: Record<string, string> = cmd.language ? { language: cmd.language } : {};
  const { job, record } = await runUploadJob(ctx, { jobType: 'transcribe', opts: cmd, extra, format: cmd.format });
  await deliver(ctx, job, record);
}
