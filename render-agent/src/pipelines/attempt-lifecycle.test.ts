import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CompleteRequest } from '@cutroom/proto';
import { loadAgentConfig } from '../config.ts';
import { TransientError } from '../coordinator-client.ts';
import { AttemptAbortedError, inputFailure, PipelineError, StaleAttemptError } from '../errors.ts';
import { createManualClock } from '../manual-clock.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import type { PipelineContext } from './pipeline.ts';

const workDir = mkdtempSync(path.join(tmpdir(), 'cutroom-lifecycle-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const assignment = {
  v: 1 as const,
  job_type: 'transcribe' as const,
  kind: 'transcribe' as const,
  lease_ms: 30_000,
  outputs: {},
  job_id: '0190a5a0-0000-7000-8000-000000000001',
  attempt_id: '0190a5a0-0000-7000-8000-000000000002',
  source: { get_url: 'http://127.0.0.1:1/source', content_type: 'audio/wav', size: null },
  params: { language: null, model: 'tiny.en' },
};
const fence = { v: 1 as const, job_id: assignment.job_id, attempt_id: assignment.attempt_id, agent_id: 'a1' };
const done: CompleteRequest = {
  ...fence,
  job_type: 'transcribe',
  language: 'en',
  outputs: [{ name: 'transcript_srt', bytes: 10 }],
  media: { duration_seconds: 1, has_video: false, has_audio: true, format_name: 'wav' },
};

function setup() {
  const logs: Record<string, unknown>[] = [];
  const client = { stage: vi.fn(), heartbeat: vi.fn(), complete: vi.fn().mockResolvedValue(undefined), fail: vi.fn().mockResolvedValue(undefined) };
  const progress = { report: vi.fn(), flush: vi.fn(), close: vi.fn() };
  const clock = createManualClock();
  const ctx: PipelineContext = {
    config: { ...loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:8080', AGENT_TOKEN: 't', NATS_URL: 'nats://127.0.0.1:4222', AGENT_ID: 'a1' }), workDir },
    whisper: { device: 'cpu', computeType: 'int8' },
    host: {
      ffmpeg: { version: '5.1', encoders: ['aac', 'libx264'] },
      nvenc: false,
      cuda: { available: false, devices: [] },
      whisperModels: { isRunnable: true, models: ['tiny.en'] },
      freeDiskBytes: 1e10,
    },
    client,
    fence,
    progress,
    logger: pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) }),
    clock,
  };
  const dir = path.join(workDir, assignment.attempt_id);
  return { ctx, client, progress, logs, dir, clock };
}

describe('runAttemptLifecycle', () => {
  it('completes with what the work returns, logs its duration on the clock, and cleans up', async () => {
    const { ctx, client, progress, logs, dir, clock } = setup();
    const outcome = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async (d) => {
      expect(d).toBe(dir);
      expect(existsSync(d)).toBe(true);
      await clock.advance(1_234);
      return done;
    });
    expect(outcome).toBe('completed');
    expect(client.complete).toHaveBeenCalledWith(done, expect.any(AbortSignal));
    expect(client.fail).not.toHaveBeenCalled();
    expect(logs.find((l) => l.msg === 'attempt completed')).toMatchObject({ duration_ms: 1_234, outputs: done.outputs });
    expect(progress.close).toHaveBeenCalledOnce();
    expect(existsSync(dir)).toBe(false);
  });

  it('fails with the pipeline error code, its message and its detail', async () => {
    const { ctx, client, dir } = setup();
    const outcome = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw inputFailure({ code: 'no_audio', params: { has_video: false } });
    });
    expect(outcome).toBe('failed');
    expect(client.fail).toHaveBeenCalledWith(
      {
        ...fence,
        code: 'media_no_audio',
        message: 'the uploaded file has no audio stream, so there is nothing to transcribe',
        detail: { code: 'no_audio', params: { has_video: false } },
      },
      expect.any(AbortSignal),
    );
    expect(client.complete).not.toHaveBeenCalled();
    expect(existsSync(dir)).toBe(false);
  });

  it('reports anything unclassified as internal', async () => {
    const { ctx, client } = setup();
    await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw new TypeError('boom');
    });
    expect(client.fail).toHaveBeenCalledWith(
      expect.objectContaining({ code: 'internal', message: 'render-agent internal error: boom' }),
      expect.any(AbortSignal),
    );
  });

  it('stops without reporting when aborted, or when the coordinator says the attempt is stale', async () => {
    const { ctx, client, progress, dir } = setup();
    const ac = new AbortController();
    const aborted = await runAttemptLifecycle(assignment, ac.signal, ctx, async () => {
      ac.abort(new AttemptAbortedError('cancelled', 'cancel message received'));
      throw ac.signal.reason;
    });
    const stale = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw new StaleAttemptError('attempt superseded');
    });
    expect([aborted, stale]).toEqual(['aborted', 'aborted']);
    expect(client.fail).not.toHaveBeenCalled();
    expect(client.complete).not.toHaveBeenCalled();
    expect(progress.close).toHaveBeenCalledTimes(2);
    expect(existsSync(dir)).toBe(false);
  });

  it('counts a fail call refused as stale as aborted, not as a crash', async () => {
    const { ctx, client } = setup();
    client.fail.mockRejectedValueOnce(new StaleAttemptError('attempt superseded'));
    const outcome = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw new PipelineError('tool_failed', 'ffmpeg crashed');
    });
    expect(outcome).toBe('aborted');
  });

  it('never puts a work-folder path or file: URL in the fail message, whatever the error says', async () => {
    const { ctx, client, dir } = setup();
    await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async (d) => {
      throw new PipelineError('media_invalid', `the audio could not be decoded (file:${d}/source: Invalid data found when processing input)`);
    });
    await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async (d) => {
      // What Node says when a file under the work folder is missing.
      throw new Error(`ENOENT: no such file or directory, open '${d}/audio.wav'`);
    });
    const messages = client.fail.mock.calls.map(([req]) => (req as { message: string }).message);
    expect(messages).toEqual([
      'the audio could not be decoded (source: Invalid data found when processing input)',
      "render-agent internal error: ENOENT: no such file or directory, open 'audio.wav'",
    ]);
    for (const m of messages) {
      expect(m).not.toContain(dir);
      expect(m).not.toContain(workDir);
      expect(m).not.toContain(tmpdir());
    }
  });

  it('reports a stage that ran past its limit as stage_timeout', async () => {
    const { ctx, client } = setup();
    await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw new PipelineError('stage_timeout', 'extracting the audio (ffmpeg) ran past its limit of 4.0 s and was stopped');
    });
    expect(client.fail).toHaveBeenCalledWith(expect.objectContaining({ code: 'stage_timeout' }), expect.any(AbortSignal));
  });

  it('gives up quietly, logging why, when the coordinator never takes complete (no fail is sent for it)', async () => {
    const { ctx, client, logs, dir } = setup();
    client.complete.mockRejectedValueOnce(new TransientError('/internal/v1/attempts/complete answered 503'));
    const outcome = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => done);
    expect(outcome).toBe('unreported');
    expect(client.fail).not.toHaveBeenCalled();
    expect(logs.find((l) => l.level === 50)).toMatchObject({ call: 'complete', msg: expect.stringMatching(/gave up reporting complete.*lease will expire/) });
    expect(existsSync(dir)).toBe(false);
  });

  it('gives up the same way when the coordinator never takes fail', async () => {
    const { ctx, client, logs } = setup();
    client.fail.mockRejectedValueOnce(new TransientError('/internal/v1/attempts/fail answered 503'));
    const outcome = await runAttemptLifecycle(assignment, new AbortController().signal, ctx, async () => {
      throw new PipelineError('tool_failed', 'ffmpeg crashed');
    });
    expect(outcome).toBe('unreported');
    expect(logs.find((l) => l.level === 50)).toMatchObject({ call: 'fail' });
  });
});
