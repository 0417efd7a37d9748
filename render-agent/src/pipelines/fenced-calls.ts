import type { MediaInfo, Stage } from '@cutroom/proto';
import { TransientError } from '../coordinator-client.ts';
import { AttemptAbortedError } from '../errors.ts';
import type { PipelineContext } from './pipeline.ts';

/**
 * Reports a stage change (with the probe where the coordinator checks it against what was paid
 * for). Failing the job when the coordinator cannot be reached would refund a caller over our
 * infrastructure's hiccup; walking away lets the lease expire and the sweeper give the job to a
 * fresh attempt.
 */
export async function reportStage(
  ctx: Pick<PipelineContext, 'client' | 'fence'>,
  stage: Stage,
  media: MediaInfo | undefined,
  signal: AbortSignal,
): Promise<void> {
  try {
    await ctx.client.stage({ ...ctx.fence, stage, ...(media === undefined ? {} : { media }) }, signal);
  } catch (err) {
    if (err instanceof TransientError) throw new AttemptAbortedError('unreachable', `the coordinator did not take the stage report: ${err.message}`);
    throw err;
  }
}

/**
 * Output keys are shared by every attempt of a job, so an attempt that lost its lease (a paused
 * process, a partition) must not upload over the outputs of the attempt that replaced it. A fresh
 * fenced heartbeat right before the upload narrows that window to the upload itself; anything but
 * a 2xx means walk away (a 409 surfaces as StaleAttemptError and stops the attempt).
 */
export async function confirmStillHolding(ctx: Pick<PipelineContext, 'client' | 'fence'>, signal: AbortSignal): Promise<void> {
  try {
    await ctx.client.heartbeat(ctx.fence, signal);
  } catch (err) {
    if (err instanceof TransientError) throw new AttemptAbortedError('unreachable', `could not confirm the lease before uploading: ${err.message}`);
    throw err;
  }
}
