import fs from 'node:fs/promises';
import path from 'node:path';
import type { Assignment, CompleteRequest } from '@cutroom/proto';
import { AttemptAbortedError, classifyFailure, StaleAttemptError } from '../errors.ts';
import type { AttemptOutcome, PipelineContext } from './pipeline.ts';

/**
 * Produces an attempt's outputs in `dir` (WORK_DIR/<attempt_id>, created and later removed for
 * it) and returns the `complete` request that describes them.
 */
export type AttemptWork = (dir: string) => Promise<CompleteRequest>;

/**
 * The part of an attempt that is the same for every job type: a work folder, then exactly one
 * terminal report. Success sends `complete`; any failure becomes `fail` with a classified code;
 * an abort (cancel, stale attempt, shutdown, coordinator unreachable) stops quietly, because the
 * coordinator already knows or will find out from the lease. The folder is always removed and
 * progress always closed, so a pipeline only writes its `work`.
 */
export async function runAttemptLifecycle(a: Assignment, signal: AbortSignal, ctx: PipelineContext, work: AttemptWork): Promise<AttemptOutcome> {
  const dir = path.join(ctx.config.workDir, a.attempt_id);
  const { clock, logger: log } = ctx;
  const started = clock.now();
  try {
    await fs.mkdir(dir, { recursive: true });
    const result = await work(dir);
    await ctx.client.complete(result, signal);
    log.info({ duration_ms: clock.now() - started, outputs: result.outputs }, 'attempt completed');
    return 'completed';
  } catch (err) {
    if (isAbort(err, signal)) {
      log.info({ reason: describe(signal.reason ?? err) }, 'attempt stopped without reporting');
      return 'aborted';
    }
    const { code, message } = classifyFailure(err);
    log.warn({ code, err: message, duration_ms: clock.now() - started }, 'attempt failed');
    try {
      await ctx.client.fail({ ...ctx.fence, code, message }, signal);
    } catch (reportErr) {
      if (isAbort(reportErr, signal)) return 'aborted';
      throw reportErr;
    }
    return 'failed';
  } finally {
    ctx.progress.close();
    await fs.rm(dir, { recursive: true, force: true }).catch((err: Error) => log.error({ err: err.message, dir }, 'could not remove the work folder'));
  }
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof AttemptAbortedError || err instanceof StaleAttemptError;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
}
