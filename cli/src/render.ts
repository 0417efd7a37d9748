import type { Job, JobSummary } from './api-types.ts';
import { formatBytes, formatClock, formatDuration } from './format.ts';

/** The parts of a clips v1 candidate printed. */
export interface Candidate {
  id: string;
  rank: number;
  start: number;
  end: number;
  duration: number;
  title: string;
  hook: string;
  summary: string;
  score: number;
  match?: { score: number; why: string } | null;
}

/** The clips v1 document (find_clips output), as far as it is printed. */
export interface ClipsDoc {
  mode: 'best' | 'query';
  query: string | null;
  notes: string[];
  candidates: Candidate[];
}

/** The summary v1 document, as far as it is printed. */
export interface SummaryDoc {
  overview: string;
  key_points: { text: string }[];
  chapters: { index: number; start: number; title: string }[];
  notes: string[];
}

/** The ranked candidates, each with the `cutroom cut` line that cuts it (pure). */
export function renderCandidates(doc: ClipsDoc, jobId: string): string[] {
  const lines: string[] = [];
  const head = doc.mode === 'query' ? `moments matching "${doc.query}"` : 'clip candidates, best first';
  if (doc.candidates.length === 0) {
    lines.push(`no ${head.replace(', best first', '')} found`);
    for (const n of doc.notes) lines.push(`  note: ${n}`);
    return lines;
  }
  lines.push(`${doc.candidates.length} ${head}:`);
  for (const c of [...doc.candidates].sort((a, b) => a.rank - b.rank)) {
    const score = doc.mode === 'query' && c.match ? `match ${c.match.score}` : `score ${c.score}`;
    lines.push('');
    lines.push(`#${c.rank}  ${formatClock(c.start)}-${formatClock(c.end)}  (${formatDuration(c.duration)})  ${score}  [${c.id}]`);
    lines.push(`    ${c.title}`);
    lines.push(`    hook: ${c.hook}`);
    lines.push(`    ${c.summary}`);
    if (doc.mode === 'query' && c.match) lines.push(`    why: ${c.match.why}`);
    lines.push(`    cut: cutroom cut ${jobId.slice(0, 8)} --start ${round(c.start)} --end ${round(c.end)} [--vertical]`);
  }
  for (const n of doc.notes) lines.push(`note: ${n}`);
  return lines;
}

/** Overview, key points and chapters (pure). */
export function renderSummary(doc: SummaryDoc): string[] {
  const lines = [doc.overview || '(no overview)'];
  if (doc.key_points.length) lines.push('', 'Key points:', ...doc.key_points.map((k) => `  - ${k.text}`));
  if (doc.chapters.length) lines.push('', 'Chapters:', ...doc.chapters.map((c) => `  ${formatClock(c.start).padStart(8)}  ${c.title}`));
  for (const n of doc.notes) lines.push(`note: ${n}`);
  return lines;
}

/** `cutroom status`: one field per line (pure). */
export function renderJob(job: Job): string[] {
  const rows: [string, string | null][] = [
    ['job', job.job_id],
    ['type', job.job_type],
    ['status', job.progress && job.progress.stage === job.status ? `${job.status} (${Math.round(job.progress.fraction * 100)}%)` : job.status],
    ['queue', job.queue ? queueLine(job.queue) : null],
    ['payment', job.payment_status],
    ['file', `${job.original_filename}${job.file_size ? ` (${formatBytes(job.file_size)})` : ''}`],
    ['duration', job.duration_seconds == null ? null : formatClock(job.duration_seconds)],
    ['source job', job.source_job_id],
    ['created', job.created_at],
    ['completed', job.completed_at],
    ['expires', job.expires_at],
    ['error', job.error_message],
    ['outputs', job.outputs?.length ? job.outputs.map((o) => o.role).join(', ') : null],
  ];
  return rows.filter((r): r is [string, string] => r[1] !== null && r[1] !== '').map(([k, v]) => `${k.padEnd(11)}${v}`);
}

/**
 * The job list, one line a job in columns (pure): short id, type, status, payment, creation time
 * (UTC, to the minute) and file. Ids are cut to 8 characters, which `cutroom status` takes back for
 * jobs this machine created; `--json` prints the whole ids.
 */
export function renderJobList(jobs: readonly JobSummary[]): string[] {
  if (jobs.length === 0) return ['no jobs'];
  const rows = jobs.map((j) => [
    j.job_id.slice(0, 8),
    j.job_type,
    j.status === 'failed' && j.payment_status === 'refunded' ? 'failed (refunded)' : j.status,
    j.payment_status === 'refunded' && j.status === 'failed' ? '' : j.payment_status,
    j.created_at.slice(0, 16).replace('T', ' '),
    j.original_filename,
  ]);
  const head = ['JOB', 'TYPE', 'STATUS', 'PAYMENT', 'CREATED (UTC)', 'FILE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** Where a waiting job stands: "position 2, 1 running on 1 agent, estimated start 2026-…Z". */
function queueLine(q: NonNullable<Job['queue']>): string {
  const agents = q.agents === 1 ? '1 agent' : `${q.agents} agents`;
  const start = q.estimated_start_at ? `estimated start ${q.estimated_start_at}` : 'no agent takes it now';
  return `position ${q.position}, ${q.running} running on ${agents}, ${start}`;
}

const round = (n: number): string => String(Math.round(n * 100) / 100);
