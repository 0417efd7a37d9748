import { type Api, errorFrom } from './api-client.ts';
import { type Job, type JobStatus, TERMINAL } from './api-types.ts';
import { CliError } from './errors.ts';
import { SseParser } from './sse.ts';

export interface FollowOptions {
  /** `sse`: the event stream, falling back to polling when it fails; `poll`: GET /jobs/{id} only. */
  mode: 'sse' | 'poll';
  /** A processing stage (a job status) and the fraction of it done. */
  onStage(stage: string, fraction?: number): void;
  /** A one-line note (the stream fell back to polling). */
  onNote(line: string): void;
  pollMs?: number;
  /** Wait before reconnecting a failed stream, until the server's `retry:` says otherwise. */
  retryMs?: number;
}

/** Statuses before processing: the stream replays them first; they are not stages to show. */
const BEFORE_PROCESSING: readonly string[] = ['pending', 'uploading'];
/** Consecutive stream failures before polling instead. */
const MAX_STREAM_FAILURES = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Follows a job until it is completed, failed or deleted, reporting its stages; returns the final
 * job (with outputs). Reads GET /jobs/{id}/events (server-sent events: status, progress, end),
 * reconnecting with Last-Event-ID when a stream closes before `end`; after repeated failures it
 * polls GET /jobs/{id} instead.
 */
export async function followJob(api: Api, jobId: string, opts: FollowOptions): Promise<Job> {
  const report = (stage: string, fraction?: number) => {
    if (!BEFORE_PROCESSING.includes(stage) && !(TERMINAL as readonly string[]).includes(stage)) opts.onStage(stage, fraction);
  };
  if (opts.mode === 'sse' && (await streamUntilEnd(api, jobId, report, opts.onNote, opts.retryMs ?? 2000))) return getJob(api, jobId);
  return pollUntilEnd(api, jobId, report, opts.pollMs ?? 1000);
}

export const getJob = (api: Api, jobId: string): Promise<Job> => api.json<Job>('GET', `/api/v1/jobs/${jobId}`, `reading job ${jobId}`);

/** true once the stream said `end`; false when it kept failing (the caller polls). */
async function streamUntilEnd(
  api: Api,
  jobId: string,
  report: (stage: string, fraction?: number) => void,
  note: (line: string) => void,
  initialRetryMs: number,
): Promise<boolean> {
  let lastEventId = '';
  let failures = 0;
  let retryMs = initialRetryMs;
  while (failures < MAX_STREAM_FAILURES) {
    let res: Response;
    try {
      res = await api.send('GET', `/api/v1/jobs/${jobId}/events`, {
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      failures++;
      await sleep(retryMs);
      continue;
    }
    // The job itself is refused (gone, not ours): polling would say the same.
    if ([400, 401, 403, 404].includes(res.status)) throw await errorFrom(res, `following job ${jobId}`);
    if (!res.ok || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      await res.body?.cancel();
      failures++;
      await sleep(retryMs);
      continue;
    }
    const parser = new SseParser(lastEventId);
    const decoder = new TextDecoder();
    let gotEvents = false;
    try {
      for await (const chunk of res.body) {
        for (const ev of parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))) {
          const data = JSON.parse(ev.data) as { type: string; status?: JobStatus; stage?: string; fraction?: number };
          if (ev.event === 'end' || data.type === 'end') return true;
          if (ev.event === 'status' && data.status) report(data.status, 0);
          else if (ev.event === 'progress' && data.stage) report(data.stage, data.fraction);
          gotEvents = true;
        }
        lastEventId = parser.lastEventId;
      }
    } catch {
      // A dropped connection or a garbled event: reconnect after what was seen.
    }
    lastEventId = parser.lastEventId;
    retryMs = parser.retryMs ?? retryMs;
    // A stream that delivered events and closed (the server bounds each response) is resumed at once.
    failures = gotEvents ? 0 : failures + 1;
    if (!gotEvents) await sleep(retryMs);
  }
  note('the job event stream keeps failing: polling the job instead');
  return false;
}

async function pollUntilEnd(api: Api, jobId: string, report: (stage: string, fraction?: number) => void, pollMs: number): Promise<Job> {
  let networkFailures = 0;
  for (;;) {
    let job: Job;
    try {
      job = await getJob(api, jobId);
      networkFailures = 0;
    } catch (err) {
      // The service restarting is waited out for a while; a refusal (404, 403) is final.
      if (!(err instanceof CliError) || !err.message.startsWith('cannot reach') || ++networkFailures > 30) throw err;
      await sleep(pollMs * 2);
      continue;
    }
    if ((TERMINAL as readonly string[]).includes(job.status)) return job;
    report(job.status, job.progress && job.progress.stage === job.status ? job.progress.fraction : 0);
    await sleep(pollMs);
  }
}
