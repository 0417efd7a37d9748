import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptAbortedError, StaleAttemptError } from '../errors.ts';
import { startLeaseKeeper, type LeaseKeeperOptions } from './lease-keeper.ts';

const ok = { v: 1 as const, lease_expires_at: '2026-01-01T00:00:30.000Z', cancel: false };

function setup(heartbeat: LeaseKeeperOptions['heartbeat']) {
  const aborts: AttemptAbortedError[] = [];
  let cancel: (() => void) | undefined;
  const working = vi.fn();
  const unsubscribe = vi.fn();
  const keeper = startLeaseKeeper({
    leaseMs: 30_000,
    heartbeat,
    working,
    subscribeCancel: (fn) => ((cancel = fn), unsubscribe),
    abort: (r) => aborts.push(r),
  });
  return { keeper, aborts, working, unsubscribe, sendCancel: () => cancel?.() };
}

describe('startLeaseKeeper', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('heartbeats and calls working() at half the lease', async () => {
    const heartbeat = vi.fn().mockResolvedValue(ok);
    const { keeper, working, aborts } = setup(heartbeat);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(heartbeat).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    expect(working).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    expect(aborts).toEqual([]);
    keeper.stop();
  });

  it('aborts on cancel: true', async () => {
    const { aborts, keeper } = setup(vi.fn().mockResolvedValue({ ...ok, cancel: true }));
    await vi.advanceTimersByTimeAsync(15_000);
    expect(aborts[0]?.why).toBe('cancelled');
    keeper.stop();
  });

  it('aborts on a stale attempt but only logs other failures', async () => {
    const heartbeat = vi.fn().mockRejectedValueOnce(new Error('ECONNREFUSED')).mockRejectedValueOnce(new StaleAttemptError('superseded'));
    const { aborts, keeper } = setup(heartbeat);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(aborts).toEqual([]);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(aborts[0]?.why).toBe('stale');
    keeper.stop();
  });

  it('aborts on a cancel message and unsubscribes on stop', async () => {
    const heartbeat = vi.fn().mockResolvedValue(ok);
    const { aborts, keeper, sendCancel, unsubscribe } = setup(heartbeat);
    sendCancel();
    expect(aborts[0]?.why).toBe('cancelled');
    keeper.stop();
    expect(unsubscribe).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(heartbeat).not.toHaveBeenCalled();
  });
});
