import { join } from 'node:path';
import type { TranscriptFormat } from './args.ts';
import { usageError } from './errors.ts';
import { readJson, writePrivateJson } from './private-file.ts';

/**
 * What this machine knows about a job it created: enough to find it again when the same command
 * runs on the same unchanged file (resume), and to deliver its outputs the way it was asked.
 * created → paid → uploaded (processing on the service) → done (outputs written, or failed).
 */
export interface JobRecord {
  job_id: string;
  job_type: string;
  /** The service's base URL: a job exists on one service. */
  url: string;
  created_at: string;
  /** Upload jobs: the file as it was when the job was created (absolute path, size, mtime). */
  file?: { path: string; size: number; mtime_ms: number; content_type: string };
  /** Derivative jobs (cut): the parent. */
  source_job_id?: string;
  /** What else makes two runs "the same command" (query, language, cut window): compared exactly. */
  request_key: string;
  stage: 'created' | 'paid' | 'uploaded' | 'done';
  /** How the outputs are wanted: transcript format, output folder (absolute), cut window for the file name. */
  deliver: { format?: TranscriptFormat; out_dir?: string; name?: string };
  finished_at?: string;
}

export interface RecordProbe {
  url: string;
  job_type: string;
  request_key: string;
  file?: { path: string; size: number; mtime_ms: number };
  source_job_id?: string;
}

/** Finished records kept for job-id prefixes and `resume`'s history. */
const KEEP_FINISHED = 100;

/** The newest unfinished record of the same command on the same unchanged file (pure). */
export function findUnfinished(records: readonly JobRecord[], probe: RecordProbe): JobRecord | undefined {
  return records
    .filter(
      (r) =>
        r.stage !== 'done' &&
        r.url === probe.url &&
        r.job_type === probe.job_type &&
        r.request_key === probe.request_key &&
        r.source_job_id === probe.source_job_id &&
        sameFile(r.file, probe.file),
    )
    .sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
}

function sameFile(a: JobRecord['file'], b: RecordProbe['file']): boolean {
  if (!a || !b) return !a && !b;
  return a.path === b.path && a.size === b.size && a.mtime_ms === b.mtime_ms;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A full job id, or the one recorded job whose id starts with `ref` (at least 4 characters) (pure). */
export function resolveJobRef(records: readonly JobRecord[], ref: string): string {
  const r = ref.trim().toLowerCase();
  if (UUID.test(r)) return r;
  if (!/^[0-9a-f-]{4,36}$/.test(r)) throw usageError(`"${ref}" is not a job id (a uuid, or the first characters of one this machine created)`);
  const ids = [...new Set(records.filter((x) => x.job_id.startsWith(r)).map((x) => x.job_id))];
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) throw usageError(`no job starting with "${ref}" was created from this machine: give the full job id`);
  throw usageError(`"${ref}" matches ${ids.length} jobs (${ids.map((i) => i.slice(0, 13)).join(', ')}): give more characters`);
}

/** Keeps every unfinished record and the newest finished ones (pure). */
export function prune(records: readonly JobRecord[]): JobRecord[] {
  const finished = records.filter((r) => r.stage === 'done').sort((a, b) => (b.finished_at ?? '').localeCompare(a.finished_at ?? ''));
  const keep = new Set(finished.slice(0, KEEP_FINISHED));
  return records.filter((r) => r.stage !== 'done' || keep.has(r));
}

/** The job records in `<config dir>/jobs.json` (mode 0600). Each change re-reads the file first, so two CLIs rarely lose each other's records. */
export class JobBook {
  readonly file: string;
  constructor(configDir: string) {
    this.file = join(configDir, 'jobs.json');
  }

  all(): JobRecord[] {
    const doc = readJson<{ jobs?: JobRecord[] }>(this.file, {});
    return Array.isArray(doc.jobs) ? doc.jobs : [];
  }

  get(jobId: string): JobRecord | undefined {
    return this.all().find((r) => r.job_id === jobId);
  }

  put(record: JobRecord): void {
    this.write([...this.all().filter((r) => r.job_id !== record.job_id), record]);
  }

  patch(jobId: string, patch: Partial<JobRecord>): void {
    const all = this.all();
    const i = all.findIndex((r) => r.job_id === jobId);
    if (i < 0) return;
    all[i] = { ...all[i]!, ...patch };
    this.write(all);
  }

  finish(jobId: string): void {
    this.patch(jobId, { stage: 'done', finished_at: new Date().toISOString() });
  }

  private write(records: JobRecord[]): void {
    writePrivateJson(this.file, { version: 1, jobs: prune(records) });
  }
}
