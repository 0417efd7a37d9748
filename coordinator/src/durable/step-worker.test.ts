import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { type DurableKind, type LeasedRun, startStepWorker } from './step-worker.ts';

/** A kind whose due runs are ids in a list; each lease takes at most `limit` of them, as SKIP LOCKED would. */
function listKind(name: string, due: string[], log: string[], run: (id: string) => Promise<string> = async () => 'done'): DurableKind & { limits: number[] } {
  const limits: number[] = [];
  return {
    name,
    limits,
    async lease(_ctx, _owner, limit) {
      limits.push(limit);
      return due.splice(0, limit).map(
        (id): LeasedRun => ({
          id,
          run: () => {
            log.push(`${name}:${id}`);
            return run(id);
          },
        }),
      );
    },
  };
}

const waitFor = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('the durable-step worker', () => {
  let ctx: EngineCtx;
  beforeAll(async () => {
    ctx = await createEngineCtx();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('runs every due run of every kind once, never more at once than its concurrency', async () => {
    const log: string[] = [];
    let inFlight = 0;
    let most = 0;
    const slow = async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return 'done';
    };
    const a = listKind('a', ['1', '2', '3'], log, slow);
    const b = listKind('b', ['4', '5'], log, slow);
    const worker = startStepWorker(ctx, [a, b], { pollMs: 10, concurrency: 2 });
    try {
      await waitFor(() => log.length === 5);
      await waitFor(() => inFlight === 0);
    } finally {
      await worker.stop();
    }
    expect(log.sort()).toEqual(['a:1', 'a:2', 'a:3', 'b:4', 'b:5']);
    expect(most).toBeLessThanOrEqual(2);
    expect(Math.max(...a.limits, ...b.limits)).toBeLessThanOrEqual(2);
  });

  it('keeps going after a run that throws or a lease that fails', async () => {
    const log: string[] = [];
    const failing = listKind('bad', ['x'], log, async () => {
      throw new Error('boom');
    });
    let leases = 0;
    const flaky: DurableKind = {
      name: 'flaky',
      async lease() {
        if (leases++ === 0) throw new Error('database down');
        const run = async () => {
          log.push('flaky:y');
          return 'done';
        };
        return leases === 2 ? [{ id: 'y', run }] : [];
      },
    };
    const worker = startStepWorker(ctx, [failing, flaky], { pollMs: 10 });
    try {
      await waitFor(() => log.includes('flaky:y') && log.includes('bad:x'));
    } finally {
      await worker.stop();
    }
  });

  it('runs a tick at once when nudged, instead of at the next poll', async () => {
    const due: string[] = [];
    const log: string[] = [];
    const worker = startStepWorker(ctx, [listKind('k', due, log)], { pollMs: 60_000 });
    try {
      await new Promise((r) => setTimeout(r, 20)); // the first tick ran and found nothing
      due.push('late');
      worker.nudge();
      await waitFor(() => log.includes('k:late'), 1000);
    } finally {
      await worker.stop();
    }
  });
});
