import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Assignment, CompleteRequest } from '@cutroom/proto';
import { TransientError } from '../coordinator-client.ts';
import { AttemptAbortedError, classifyFailure, StaleAttemptError } from '../errors.ts';
import type { AttemptOutcome, PipelineContext } from './pipeline.ts';

/**
 * Produces an attempt's outputs in `dir` (WORK_DIR/<attempt_id>, created and later removed for
 * it) and returns the `complete` request that describes them.
 */
export type AttemptWork = (dir: string) => Promise<CompleteRequest>;

/**
 * The part of an attempt that is the same for every job type: a work folder, then exactly one
 * terminal report. Success sends `complete`; any failure becomes `fail` with a classified code,
 * a message with no local path in it (for operators: the attempt row), and the failure's
 * detail, which is all the caller reads (rendered by the coordinator); an abort (cancel, stale
 * attempt, shutdown, coordinator unreachable) stops quietly, because the coordinator already
 * knows or will find out from the lease. A report the coordinator never takes (the client gives
 * up after RESULT_RETRY_MAX_MS) ends as `unreported`: the lease then runs out and the sweeper
 * requeues the job. The folder is always removed and progress always closed, so a pipeline only
 * writes its `work`.
 */
export async function runAttemptLifecycle(a: Assignment, signal: AbortSignal, ctx: PipelineContext, work: AttemptWork): Promise<AttemptOutcome> {
  const dir = path.join(ctx.config.workDir, a.attempt_id);
  // Everything a tool or Node may name in an error: no local path goes into the attempt row.
  const hideRoots = [dir, path.resolve(dir), ctx.config.workDir, path.resolve(ctx.config.workDir), os.tmpdir()];
  const { clock, logger: log } = ctx;
  const started = clock.now();
  try {
    await fs.mkdir(dir, { recursive: true });
    const result = await work(dir);
    try {
      await ctx.client.complete(result, signal);
    } catch (err) {
      if (err instanceof TransientError) return gaveUp('complete', err, ctx);
      throw err;
    }
    log.info({ duration_ms: clock.now() - started, outputs: result.outputs, stats: result.stats }, 'attempt completed');
    return 'completed';
  } catch (err) {
    if (isAbort(err, signal)) {
      log.info({ reason: describe(signal.reason ?? err) }, 'attempt stopped without reporting');
      return 'aborted';
    }
    const { code, message, detail } = classifyFailure(err, hideRoots);
    log.warn({ code, detail, err: message, duration_ms: clock.now() - started }, 'attempt failed');
    try {
      await ctx.client.fail({ ...ctx.fence, code, message, ...(detail && { detail }) }, signal);
    } catch (reportErr) {
      if (isAbort(reportErr, signal)) return 'aborted';
      if (reportErr instanceof TransientError) return gaveUp('fail', reportErr, ctx);
      throw reportErr;
    }
    return 'failed';
  } finally {
    ctx.progress.close();
    await fs.rm(dir, { recursive: true, force: true }).catch((err: Error) => log.error({ err: err.message, dir }, 'could not remove the work folder'));
  }
}

/**
 * The coordinator did not answer `complete`/`fail` within the client's retry budget. Retrying
 * forever would keep this agent (and, while heartbeats still pass, the job's lease) busy with
 * one attempt for good; giving up stops the lease keeper, the lease runs out, and the sweeper
 * requeues the job (or fails and refunds it after MAX_ATTEMPTS).
 */
function gaveUp(call: 'complete' | 'fail', err: TransientError, ctx: PipelineContext): AttemptOutcome {
  ctx.logger.error(
    { call, err: err.message },
    `gave up reporting ${call}: the coordinator did not take it in time; the lease will expire and the sweeper requeues the job`,
  );
  return 'unreported';
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof AttemptAbortedError || err instanceof StaleAttemptError;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
}
