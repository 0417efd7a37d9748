import { describe, expect, it, vi } from 'vitest';
import { type AttemptAbortedError, StaleAttemptError } from '../errors.ts';
import { createManualClock } from '../manual-clock.ts';
import { startLeaseKeeper, type LeaseKeeperOptions } from './lease-keeper.ts';

const ok = { v: 1 as const, lease_expires_at: '2026-01-01T00:00:30.000Z', cancel: false };

function setup(heartbeat: LeaseKeeperOptions['heartbeat']) {
  const clock = createManualClock();
  const aborts: AttemptAbortedError[] = [];
  let cancel: (() => void) | undefined;
  const working = vi.fn();
  const unsubscribe = vi.fn();
  const keeper = startLeaseKeeper({
    leaseMs: 30_000,
    heartbeat,
    working,
    subscribeCancel: (fn) => {
      cancel = fn;
      return unsubscribe;
    },
    abort: (r) => aborts.push(r),
    clock,
  });
  return { clock, keeper, aborts, working, unsubscribe, sendCancel: () => cancel?.() };
}

describe('startLeaseKeeper', () => {
  it('heartbeats and calls working() at half the lease', async () => {
    const heartbeat = vi.fn().mockResolvedValue(ok);
    const { clock, keeper, working, aborts } = setup(heartbeat);
    await clock.advance(14_999);
    expect(heartbeat).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    expect(working).toHaveBeenCalledTimes(1);
    await clock.advance(30_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    expect(aborts).toEqual([]);
    keeper.stop();
  });

  it('aborts on cancel: true', async () => {
    const { clock, aborts, keeper } = setup(vi.fn().mockResolvedValue({ ...ok, cancel: true }));
    await clock.advance(15_000);
    expect(aborts[0]?.why).toBe('cancelled');
    keeper.stop();
  });

  it('aborts on a stale attempt but only logs other failures', async () => {
    const heartbeat = vi.fn().mockRejectedValueOnce(new Error('ECONNREFUSED')).mockRejectedValueOnce(new StaleAttemptError('superseded'));
    const { clock, aborts, keeper } = setup(heartbeat);
    await clock.advance(15_000);
    expect(aborts).toEqual([]);
    await clock.advance(15_000);
    expect(aborts[0]?.why).toBe('stale');
    keeper.stop();
  });

  it('sends one heartbeat at a time while the coordinator is slow, but keeps calling working()', async () => {
    let answer: (() => void) | undefined;
    const heartbeat = vi.fn(() => new Promise<typeof ok>((resolve) => (answer = () => resolve(ok))));
    const { clock, keeper, working } = setup(heartbeat);
    await clock.advance(45_000);
    expect(working).toHaveBeenCalledTimes(3);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    answer?.();
    await clock.advance(15_000);
    expect(heartbeat).toHaveBeenCalledTimes(2);
    keeper.stop();
  });

  it('aborts on a cancel message and unsubscribes on stop', async () => {
    const heartbeat = vi.fn().mockResolvedValue(ok);
    const { clock, aborts, keeper, sendCancel, unsubscribe } = setup(heartbeat);
    sendCancel();
    expect(aborts[0]?.why).toBe('cancelled');
    keeper.stop();
    expect(unsubscribe).toHaveBeenCalledOnce();
    expect(clock.pending()).toBe(0);
    await clock.advance(60_000);
    expect(heartbeat).not.toHaveBeenCalled();
  });
});
