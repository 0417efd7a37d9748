import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { deliver } from './deliver.ts';
import { runUploadJob } from './upload-flow.ts';

/** `cutroom summarize <file>`: transcript and summary files; the overview, key points and chapters printed. */
export async function summarizeCommand(ctx: Ctx, cmd: Extract<Command, { name: 'summarize' }>): Promise<void> {
  const extra: Record<string, string> = cmd.language ? { language: cmd.language } : {};
  const { job, record } = await runUploadJob(ctx, { jobType: 'summarize', opts: cmd, extra });
  await deliver(ctx, job, record);
}
