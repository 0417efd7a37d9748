import type { JobList, JobSummary } from '../api-types.ts';
import type { Command } from '../args.ts';
import type { Ctx } from '../context.ts';
import { renderJobList } from '../render.ts';
import { resolveJobRef } from '../state.ts';

/** `cutroom jobs`: the session's jobs from the service's list (GET /api/v1/jobs), newest first; every page with --all. */
export async function jobsCommand(ctx: Ctx, cmd: Extract<Command, { name: 'jobs' }>): Promise<void> {
  const query = new URLSearchParams({ limit: String(cmd.limit) });
  if (cmd.status) query.set('status', cmd.status);
  if (cmd.type) query.set('job_type', cmd.type);
  if (cmd.source) query.set('source_job_id', resolveJobRef(ctx.book.all(), cmd.source));
  const listed: JobSummary[] = [];
  let cursor: string | null = null;
  do {
    if (cursor) query.set('cursor', cursor);
    const page: JobList = await ctx.api.json<JobList>('GET', `/api/v1/jobs?${query}`, 'listing the jobs');
    listed.push(...page.jobs);
    cursor = page.next_cursor;
  } while (cmd.all && cursor);
  if (cmd.json) {
    ctx.out(JSON.stringify({ jobs: listed, ...(cursor && { next_cursor: cursor }) }, null, 2));
    return;
  }
  for (const line of renderJobList(listed)) ctx.out(line);
  if (cursor) ctx.out(`(newest ${listed.length} shown: --all lists every job)`);
}
