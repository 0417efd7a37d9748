import type { Ctx } from '../context.ts';
import { parseEventId, streamJobEvents, type JobStreamEvent } from '../jobs/job-stream.ts';
import { ownedJob } from './caller.ts';
import type { Credentials } from './credentials.ts';

export type { JobStreamEvent };

/**
 * A job's event stream (status changes from `afterEventId` on, progress, then `end`). Everything
 * that can refuse the call (401, 404 / 403, a malformed event id: 400) is checked here, eagerly,
 * so a transport answers its usual error before it starts streaming; the stream itself only ends.
 */
export async function jobEventsCall(
  ctx: Ctx,
  creds: Credentials,
  jobId: string,
  opts: { afterEventId?: string; signal: AbortSignal; pollMs?: number },
): Promise<AsyncGenerator<JobStreamEvent>> {
  await ownedJob(ctx, creds, jobId);
  parseEventId(opts.afterEventId);
  return streamJobEvents(ctx, jobId, opts);
}
