import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AttemptAbortedError, PipelineError } from '../errors.ts';
import { extractAudio } from '../executors/ffmpeg.ts';
import { transcribeWithWhisper } from '../executors/whisper.ts';
import { createManualClock } from '../manual-clock.ts';
import { runWithinLimit, stageLimitMs } from './stage-limit.ts';

const limits = { floorMs: 60_000, extractFactor: 0.5, transcribeFactor: 3, encodeFactor: 10, detectFactor: 10 };

describe('stageLimitMs', () => {
  it('is the floor plus the stage factor times the media duration; the probe gets the floor', () => {
    expect(stageLimitMs('probe', 3600, limits)).toBe(60_000);
    expect(stageLimitMs('extract', 600, limits)).toBe(60_000 + 300_000);
    expect(stageLimitMs('transcribe', 600, limits)).toBe(60_000 + 1_800_000);
    expect(stageLimitMs('transcribe', 0.0005, limits)).toBe(60_002);
  });

  it('treats an unknown or bogus duration as none', () => {
    expect(stageLimitMs('transcribe', Number.NaN, limits)).toBe(60_000);
    expect(stageLimitMs('extract', -5, limits)).toBe(60_000);
  });
});

/** Settles only when `signal` aborts, rejecting with its reason: a stage that never ends by itself. */
const hang = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

describe('runWithinLimit (manual clock)', () => {
  it('stops a stage at its limit, not before, and fails it as stage_timeout', async () => {
    const clock = createManualClock();
    const stageSignals: AbortSignal[] = [];
    const run = runWithinLimit({ stage: 'extract', limitMs: 5_000, signal: new AbortController().signal, clock }, (s) => {
      stageSignals.push(s);
      return hang(s);
    });
    const settled = vi.fn();
    run.then(settled, settled);
    await clock.advance(4_999);
    expect(settled).not.toHaveBeenCalled();
    expect(stageSignals[0]!.aborted).toBe(false);
    await clock.advance(1);
    const err = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect(err).toMatchObject({ code: 'stage_timeout' });
    expect((err as Error).message).toMatch(/extracting the audio \(ffmpeg\) ran past its limit of 5\.0 s/);
    expect(stageSignals[0]!.aborted).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('leaves no timer behind when the stage finishes in time', async () => {
    const clock = createManualClock();
    await expect(runWithinLimit({ stage: 'probe', limitMs: 1_000, signal: new AbortController().signal, clock }, async () => 'probed')).resolves.toBe('probed');
    expect(clock.pending()).toBe(0);
  });

  it("passes the attempt's own abort through unchanged (it stops quietly, without stage_timeout)", async () => {
    const clock = createManualClock();
    const attempt = new AbortController();
    const run = runWithinLimit({ stage: 'transcribe', limitMs: 5_000, signal: attempt.signal, clock }, hang);
    const reason = new AttemptAbortedError('cancelled', 'cancel message received');
    attempt.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(clock.pending()).toBe(0);
  });

  it('keeps a failure the stage raised itself before the limit', async () => {
    const clock = createManualClock();
    const run = runWithinLimit({ stage: 'probe', limitMs: 5_000, signal: new AbortController().signal, clock }, async () => {
      throw new PipelineError('media_invalid', 'not media');
    });
    await expect(run).rejects.toMatchObject({ code: 'media_invalid' });
  });
});

/**
 * Real children that hang: a shell script standing in for ffmpeg or Python that starts a
 * grandchild (`sleep`) and waits for it, writing both pids to a file. Killing only the direct
 * child would leave the grandchild running, holding the stdout pipe the executor waits on.
 */
describe('a hanging child at its limit (manual clock, real processes)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cutroom-stage-limit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `ignoreTerm`: the script and its sleep ignore SIGTERM (an ignored signal is inherited), so only SIGKILL ends them. */
  function hangingTool(name: string, ignoreTerm = false): { bin: string; pids: () => number[] } {
    const pidFile = path.join(dir, `${name}.pids`);
    const bin = path.join(dir, name);
    writeFileSync(bin, `#!/bin/sh\n${ignoreTerm ? "trap '' TERM\n" : ''}echo $$ >> '${pidFile}'\nsleep 300 &\necho $! >> '${pidFile}'\nwait\n`);
    chmodSync(bin, 0o755);
    const pids = () => {
      try {
        return readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    return { bin, pids };
  }

  async function expectKilledAtLimit(tool: ReturnType<typeof hangingTool>, start: (signal: AbortSignal) => Promise<unknown>) {
    const clock = createManualClock();
    const run = runWithinLimit({ stage: 'transcribe', limitMs: 60_000, signal: new AbortController().signal, clock }, start);
    run.catch(() => undefined);
    await vi.waitFor(() => expect(tool.pids()).toHaveLength(2), { timeout: 5_000 });
    await clock.advance(59_999);
    expect(tool.pids().every(isRunning)).toBe(true);
    await clock.advance(1);
    await expect(run).rejects.toMatchObject({ code: 'stage_timeout' });
    // The child and its grandchild are gone as the stage rejects: the group was signalled before the
    // child's exit was awaited, but a grandchild's own exit can trail it by a few ms on a busy machine.
    await vi.waitFor(() => expect(tool.pids().filter(isRunning)).toEqual([]), { timeout: 2_000 });
  }

  it('kills a hanging ffmpeg and what it started', async () => {
    const tool = hangingTool('ffmpeg');
    await expectKilledAtLimit(tool, (signal) =>
      extractAudio({ ffmpegPath: tool.bin, input: path.join(dir, 'source'), output: path.join(dir, 'audio.wav'), durationSeconds: 10, signal }),
    );
  });

  it('escalates to SIGKILL for the whole group when the child ignores SIGTERM', async () => {
    const tool = hangingTool('stubborn-ffmpeg', true);
    const started = Date.now();
    await expectKilledAtLimit(tool, (signal) =>
      extractAudio({ ffmpegPath: tool.bin, input: path.join(dir, 'source'), output: path.join(dir, 'audio.wav'), durationSeconds: 10, signal }),
    );
    // execa's forceKillAfterDelay (real time): SIGKILL 2 s after the SIGTERM that was ignored.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });

  it('kills a hanging Whisper child and what it started', async () => {
    const tool = hangingTool('python');
    await expectKilledAtLimit(tool, (signal) =>
      transcribeWithWhisper({
        python: tool.bin,
        audioPath: path.join(dir, 'audio.wav'),
        model: 'tiny.en',
        device: 'cpu',
        computeType: 'int8',
        beamSize: 5,
        language: null,
        allowDownload: false,
        signal,
      }),
    );
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
