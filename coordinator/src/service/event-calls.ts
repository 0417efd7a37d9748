import type { Ctx } from '../context.ts';
import { parseEventId, streamJobEvents, type JobStreamEvent } from '../jobs/job-stream.ts';
import { ownedJob } from './caller.ts';
import type { Credentials } from './credentials.ts';
import { holdStreamSlot } from './stream-slots.ts';

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
  // A slot of the caller's long-lived connections (429/503 past a cap), held until the stream ends or is aborted.
  const release = holdStreamSlot(ctx, creds);
  opts.signal.addEventListener('abort', release, { once: true });
  return releasing(streamJobEvents(ctx, jobId, opts), release);
}

/** The stream, calling `release` once it ends, fails or is returned early. */
export async function* releasing<T>(events: AsyncGenerator<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    release();
  }
}
