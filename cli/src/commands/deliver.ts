import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Job } from '../api-types.ts';
import type { TranscriptFormat } from '../args.ts';
import type { Ctx } from '../context.ts';
import { stemOf } from '../media.ts';
import { downloadOutput, outputFileName } from '../outputs.ts';
import { type ClipsDoc, renderCandidates, renderSummary, type SummaryDoc } from '../render.ts';
import type { JobRecord } from '../state.ts';

/**
 * Writes what the command promised for a completed job, prints the paths (and the candidates or
 * the summary), and closes its record. transcribe: the transcript in the asked format;
 * summarize: transcript (srt) + summary JSON; find_clips: clips JSON + transcript; cuts: the mp4.
 */
export async function deliver(ctx: Ctx, job: Job, record: JobRecord): Promise<void> {
  ctx.current = { jobId: job.job_id, phase: 'download' };
  const dir = record.deliver.out_dir ?? (record.file ? dirname(record.file.path) : process.cwd());
  const stem = record.deliver.name ?? stemOf(record.file?.path ?? job.original_filename);
  const write = async (role: string, format?: TranscriptFormat) => {
    const out = job.outputs?.find((o) => o.role === role);
    const path = await downloadOutput(ctx, job, role, format, dir, outputFileName(stem, role, out?.content_type ?? null, format));
    ctx.out(`${role.padEnd(11)}${path}`);
    return path;
  };
  switch (job.job_type) {
    case 'transcribe':
      await write('transcript', record.deliver.format ?? 'srt');
      break;
    case 'summarize': {
      await write('transcript', record.deliver.format ?? 'srt');
      const path = await write('summary');
      ctx.out('');
      for (const line of renderSummary(JSON.parse(readFileSync(path, 'utf8')) as SummaryDoc)) ctx.out(line);
      break;
    }
    case 'find_clips': {
      await write('transcript', record.deliver.format ?? 'srt');
      const path = await write('clips');
      ctx.out('');
      for (const line of renderCandidates(JSON.parse(readFileSync(path, 'utf8')) as ClipsDoc, job.job_id)) ctx.out(line);
      break;
    }
    default:
      await write('clip');
  }
  ctx.book.finish(job.job_id);
}
