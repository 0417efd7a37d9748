import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AGENT_ROUTES } from '@cutroom/proto';
import { systemClock, type Clock } from './clock.ts';
import { createCoordinatorClient, TransientError } from './coordinator-client.ts';
import { CoordinatorError, StaleAttemptError } from './errors.ts';
import { createManualClock, type ManualClock } from './manual-clock.ts';

type Reply = { status: number; body?: unknown };
const seen: { url: string; auth: string | undefined; body: unknown }[] = [];
let replies: Reply[] = [];
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(data) });
      const r = replies.shift() ?? { status: 200, body: {} };
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.body ?? {}));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
beforeEach(() => {
  seen.length = 0;
  replies = [];
});

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-000000000001', attempt_id: '0190a5a0-0000-7000-8000-000000000002', agent_id: 'a1' };
/**
 * Back-off without waiting: each sleep is recorded and returns at once (or rejects when its
 * signal has aborted), and `onSleep` may act at the n-th one.
 */
function instantClock(onSleep: (n: number) => void = () => undefined): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    ...systemClock,
    sleeps,
    async sleep(ms, signal) {
      sleeps.push(ms);
      onSleep(sleeps.length);
      signal?.throwIfAborted();
    },
  };
}
const client = (clock: Clock = instantClock()) => createCoordinatorClient({ baseUrl, token: 'sekrit', backoff: { initialMs: 500, maxMs: 2_000 }, clock });

describe('createCoordinatorClient', () => {
  it('posts with the bearer token and validates the answer', async () => {
    replies = [{ status: 200, body: { v: 1, claimed: false, reason: 'taken' } }];
    await expect(client().claim({ v: 1, job_id: fence.job_id, agent_id: 'a1' })).resolves.toEqual({ v: 1, claimed: false, reason: 'taken' });
    expect(seen[0]).toMatchObject({ url: AGENT_ROUTES.claim, auth: 'Bearer sekrit', body: { job_id: fence.job_id } });
  });

  it('turns 409 into StaleAttemptError', async () => {
    replies = [{ status: 409, body: { v: 1, error: 'attempt superseded', stale: true } }];
    await expect(client().heartbeat(fence)).rejects.toThrow(StaleAttemptError);
  });

  it('retries complete through 5xx until answered, backing off on its clock', async () => {
    replies = [{ status: 503 }, { status: 502 }, { status: 500 }, { status: 200 }];
    const req = {
      ...fence,
      job_type: 'transcribe' as const,
      media: { duration_seconds: 1, has_video: false, has_audio: true, format_name: 'wav' },
      language: 'en',
      outputs: [],
    };
    const clock = instantClock();
    await client(clock).complete(req);
    expect(seen).toHaveLength(4);
    expect(seen[0]?.body).toMatchObject({ job_type: 'transcribe' });
    // Doubling from 500 ms, capped at 2 s, each within ±20 % jitter.
    expect(clock.sleeps).toHaveLength(3);
    [500, 1_000, 2_000].forEach((base, i) => {
      expect(clock.sleeps[i]).toBeGreaterThanOrEqual(base * 0.8);
      expect(clock.sleeps[i]).toBeLessThanOrEqual(base * 1.2);
    });
  });

  it('gives up on claim after a few tries', async () => {
    replies = [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 200, body: { v: 1, claimed: false, reason: 'x' } }];
    await expect(client().claim({ v: 1, job_id: fence.job_id, agent_id: 'a1' })).rejects.toThrow(/503/);
    expect(seen).toHaveLength(3);
  });

  it('gives up on a stage report after its bounded tries with a TransientError', async () => {
    replies = [{ status: 500 }, { status: 500 }, { status: 200 }];
    const c = createCoordinatorClient({ baseUrl, token: 't', stageTries: 2, clock: instantClock() });
    await expect(c.stage({ ...fence, stage: 'transcribing' })).rejects.toThrow(TransientError);
    expect(seen).toHaveLength(2);
  });

  it('does not retry a 4xx and reports a body that breaks the protocol', async () => {
    replies = [{ status: 400, body: { error: 'bad' } }];
    await expect(client().fail({ ...fence, code: 'internal', message: 'x' })).rejects.toThrow(CoordinatorError);
    replies = [{ status: 200, body: { v: 1, cancel: 'nope' } }];
    await expect(client().heartbeat(fence)).rejects.toThrow(/does not match the protocol/);
  });

  it('retries network errors and stops when its signal aborts', async () => {
    const ac = new AbortController();
    // The agent stops while the third back-off is running.
    const clock = instantClock((n) => (n === 3 ? ac.abort(new Error('shutting down')) : undefined));
    const dead = createCoordinatorClient({ baseUrl: 'http://127.0.0.1:1', token: 't', clock });
    await expect(dead.fail({ ...fence, code: 'internal', message: 'x' }, ac.signal)).rejects.toThrow('shutting down');
    expect(clock.sleeps).toHaveLength(3);
  });

  describe('the cap on complete/fail retries (manual clock)', () => {
    /**
     * Runs `call` to its end, moving the clock through each back-off as soon as it is set, in
     * 50 ms steps (so the clock overshoots a back-off's end by under 50 ms).
     */
    async function driveToEnd<T>(clock: ManualClock, call: Promise<T>): Promise<T> {
      let settled = false;
      call.then(
        () => (settled = true),
        () => (settled = true),
      );
      for (;;) {
        // Each failed try sets exactly one timer (its back-off); a settled call sets none.
        await vi.waitFor(() => expect(settled || clock.pending() === 1).toBe(true));
        if (settled) return call;
        while (clock.pending() === 1) await clock.advance(50);
      }
    }

    const failReq = { ...fence, code: 'tool_failed' as const, message: 'ffmpeg crashed' };

    it('stops retrying fail once the next back-off would end past resultRetryMaxMs, and logs that it gave up', async () => {
      replies = Array.from({ length: 50 }, () => ({ status: 503 }));
      const clock = createManualClock(1_000_000);
      const logs: Record<string, unknown>[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
      const c = createCoordinatorClient({ baseUrl, token: 't', backoff: { initialMs: 1_000, maxMs: 4_000 }, resultRetryMaxMs: 20_000, clock, logger });
      const err = await driveToEnd(clock, c.fail(failReq)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransientError);
      expect((err as Error).message).toMatch(/503/);
      // Back-offs (±20 %) of 1, 2, 4, 4, 4 … s: every retry started within 20 s of the first try,
      // and the next back-off (at most 4.8 s) would have ended past it.
      const elapsed = clock.now() - 1_000_000;
      expect(elapsed).toBeLessThanOrEqual(20_050);
      expect(elapsed + 4_800).toBeGreaterThan(20_000);
      expect(seen.length).toBeGreaterThanOrEqual(6);
      expect(seen.length).toBeLessThanOrEqual(9);
      expect(clock.pending()).toBe(0);
      const gaveUp = logs.find((l) => l.level === 50);
      expect(gaveUp).toMatchObject({ route: AGENT_ROUTES.fail, tries: seen.length, msg: `giving up on ${AGENT_ROUTES.fail} after ${seen.length} tries` });
    });

    it('applies the same cap to complete, and still takes an answer that comes in time', async () => {
      const req = {
        ...fence,
        job_type: 'transcribe' as const,
        media: { duration_seconds: 1, has_video: false, has_audio: true, format_name: 'wav' },
        language: 'en',
        outputs: [],
      };
      const clock = createManualClock();
      const c = createCoordinatorClient({ baseUrl, token: 't', backoff: { initialMs: 1_000, maxMs: 4_000 }, resultRetryMaxMs: 10_000, clock });
      replies = Array.from({ length: 50 }, () => ({ status: 502 }));
      await expect(driveToEnd(clock, c.complete(req))).rejects.toThrow(TransientError);
      expect(clock.now()).toBeLessThanOrEqual(10_050);
      expect(clock.now()).toBeGreaterThan(10_000 - 4_800);

      seen.length = 0;
      replies = [{ status: 502 }, { status: 502 }, { status: 200 }];
      await expect(driveToEnd(clock, c.complete(req))).resolves.toBeUndefined();
      expect(seen).toHaveLength(3);
    });

    it('defaults to 10 minutes', async () => {
      replies = Array.from({ length: 100 }, () => ({ status: 500 }));
      const clock = createManualClock();
      const c = createCoordinatorClient({ baseUrl, token: 't', clock });
      await expect(driveToEnd(clock, c.fail(failReq))).rejects.toThrow(TransientError);
      // 30 s steps after the doubling: the last retry starts within the 10 minutes.
      expect(clock.now()).toBeGreaterThan(10 * 60_000 - 36_000);
      expect(clock.now()).toBeLessThanOrEqual(10 * 60_000 + 50);
    });
  });
});
