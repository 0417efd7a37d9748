import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobAttempts, jobEvents } from '../coordinator/src/db/schema.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Issue 7, finding 3 on the real stack: an ffmpeg that hangs no longer keeps its lease alive
 * forever. The agent's FFMPEG_PATH is a script that runs the real ffmpeg for the start-up probes
 * but, for the audio extraction, starts a `sleep` and waits on it. With a 1.5 s stage limit every
 * attempt is killed at the limit and fails as stage_timeout (ours, retried); after MAX_ATTEMPTS
 * (3) the job fails and is refunded, and neither the script nor its `sleep` outlives an attempt.
 */
describe('a stage whose child hangs', () => {
  let stack: Stack;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-hang-'));
  const pidFile = join(work, 'pids');
  const agentWorkDir = join(work, 'agent-work');
  const hangingFfmpeg = join(work, 'ffmpeg-that-hangs');

  beforeAll(async () => {
    writeFileSync(
      hangingFfmpeg,
      [
        '#!/bin/sh',
        '# The extraction is the only ffmpeg call with -progress; everything else is the real ffmpeg.',
        'for arg in "$@"; do',
        '  if [ "$arg" = "-progress" ]; then',
        `    echo $$ >> '${pidFile}'`,
        '    sleep 3600 &',
        `    echo $! >> '${pidFile}'`,
        '    wait',
        '    exit 0',
        '  fi',
        'done',
        'exec ffmpeg "$@"',
        '',
      ].join('\n'),
    );
    chmodSync(hangingFfmpeg, 0o755);
    stack = await startStack({ storage: 'local', agents: 0, sweepMs: 500 });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('is killed at its limit, the job retried, then failed and refunded, with no process left', async () => {
    const { api, coordinator } = stack;
    const db = coordinator.ctx.db;
    const agent = await stack.startAgent('hang-agent', {
      env: {
        FFMPEG_PATH: hangingFfmpeg,
        STAGE_TIMEOUT_FLOOR_MS: '1500',
        STAGE_TIMEOUT_EXTRACT_FACTOR: '0',
        WORK_DIR: agentWorkDir,
      },
    });
    const token = await api.newSession();
    const id = await api.submitTranscribe(token, librivoxUtterances()[0]!.file, 'hangs.wav', 'audio/wav');

    const job = await api.waitForJob(token, id, undefined, 120_000);
    expect(job.status, job.error_message).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    expect(job.error_message).toMatch(/\(stage_timeout\); the job was refunded/);

    const attempts = await db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id)).orderBy(asc(jobAttempts.startedAt));
    expect(attempts.map((a) => [a.agentId, a.outcome, a.errorCode])).toEqual([
      ['hang-agent', 'failed', 'stage_timeout'],
      ['hang-agent', 'failed', 'stage_timeout'],
      ['hang-agent', 'failed', 'stage_timeout'],
    ]);
    for (const a of attempts) {
      expect(a.errorMessage).toMatch(/^extracting the audio \(ffmpeg\) ran past its limit of 1\.5 s and was stopped/);
      expect(a.errorMessage).not.toContain(agentWorkDir);
      // Stopped at the limit: not before it, and not by the lease (30 s).
      const ranMs = a.endedAt!.getTime() - a.startedAt.getTime();
      expect(ranMs).toBeGreaterThanOrEqual(1_500);
      expect(ranMs).toBeLessThan(15_000);
    }
    const events = await db.select().from(jobEvents).where(eq(jobEvents.jobId, id)).orderBy(asc(jobEvents.id));
    const reasons = events.map((e) => e.reason);
    expect(reasons.filter((r) => r === 'attempt failed: stage_timeout')).toHaveLength(2);
    expect(reasons.at(-1)).toBe('failed: stage_timeout');

    // Each attempt started the script and its sleep; all six are gone.
    const pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(6);
    await vi.waitFor(() => expect(pids.filter(isRunning)).toEqual([]), { timeout: 5_000 });
    // The agent itself carries on, and left no attempt folder behind.
    expect(isRunning(agent.process.pid!)).toBe(true);
    expect(readdirSync(agentWorkDir)).toEqual([]);
  });
});

/** Alive and not a zombie (an orphan's zombie waits for a reaper the test host may not run). */
function isRunning(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
