import { describe, expect, it, vi } from 'vitest';
import { TransientError } from '../coordinator-client.ts';
import { AttemptAbortedError, StaleAttemptError } from '../errors.ts';
import { confirmStillHolding, reportStage } from './fenced-calls.ts';

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-000000000001', attempt_id: '0190a5a0-0000-7000-8000-000000000002', agent_id: 'a1' };
const media = { duration_seconds: 3, has_video: true, has_audio: true, format_name: 'mov,mp4' };
const signal = new AbortController().signal;
const ok = { v: 1 as const, lease_expires_at: '2026-01-01T00:00:30.000Z', cancel: false };

function clientWith(stage: () => Promise<void>, heartbeat: () => Promise<typeof ok>) {
  return { fence, client: { stage: vi.fn(stage), heartbeat: vi.fn(heartbeat), complete: vi.fn(), fail: vi.fn() } };
}

describe('reportStage', () => {
  it('sends the stage with the probe under the attempt fence', async () => {
    const ctx = clientWith(
      async () => undefined,
      async () => ok,
    );
    await reportStage(ctx, 'transcribing', media, signal);
    expect(ctx.client.stage).toHaveBeenCalledWith({ ...fence, stage: 'transcribing', media }, signal);
  });

  it('walks away (unreachable) when the coordinator cannot take it, and lets a 409 through', async () => {
    const down = clientWith(
      async () => {
        throw new TransientError('stage answered 503');
      },
      async () => ok,
    );
    await expect(reportStage(down, 'transcribing', media, signal)).rejects.toMatchObject({ name: 'AttemptAbortedError', why: 'unreachable' });
    const stale = clientWith(
      async () => {
        throw new StaleAttemptError('superseded');
      },
      async () => ok,
    );
    await expect(reportStage(stale, 'transcribing', undefined, signal)).rejects.toThrow(StaleAttemptError);
  });
});

describe('confirmStillHolding', () => {
  it('passes on a fresh heartbeat, walks away when it cannot get one', async () => {
    await expect(
      confirmStillHolding(
        clientWith(
          async () => undefined,
          async () => ok,
        ),
        signal,
      ),
    ).resolves.toBeUndefined();
    const down = clientWith(
      async () => undefined,
      async () => {
        throw new TransientError('ECONNREFUSED');
      },
    );
    await expect(confirmStillHolding(down, signal)).rejects.toBeInstanceOf(AttemptAbortedError);
    const stale = clientWith(
      async () => undefined,
      async () => {
        throw new StaleAttemptError('superseded');
      },
    );
    await expect(confirmStillHolding(stale, signal)).rejects.toThrow(StaleAttemptError);
  });
});
