import { describe, expect, it } from 'vitest';
import { createManualClock } from './manual-clock.ts';

describe('createManualClock', () => {
  it('starts where told and moves only on advance', async () => {
    const clock = createManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advance(250);
    expect(clock.now()).toBe(1_250);
  });

  it('runs due timers earliest first, each at its own time, and leaves later ones', async () => {
    const clock = createManualClock();
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(['b', clock.now()]), 200);
    clock.setTimeout(() => fired.push(['a', clock.now()]), 100);
    clock.setTimeout(() => fired.push(['c', clock.now()]), 300);
    await clock.advance(200);
    expect(fired).toEqual([
      ['a', 100],
      ['b', 200],
    ]);
    expect(clock.pending()).toBe(1);
  });

  it('repeats intervals until cleared, and cleared timers never fire', async () => {
    const clock = createManualClock();
    let ticks = 0;
    const interval = clock.setInterval(() => ticks++, 100);
    const cleared = clock.setTimeout(() => (ticks += 1_000), 50);
    clock.clearTimeout(cleared);
    await clock.advance(350);
    expect(ticks).toBe(3);
    clock.clearInterval(interval);
    await clock.advance(1_000);
    expect(ticks).toBe(3);
    expect(clock.pending()).toBe(0);
  });

  it('lets async work a timer starts settle, and runs the timers it sets inside the window', async () => {
    const clock = createManualClock();
    const steps: number[] = [];
    clock.setTimeout(async () => {
      await Promise.resolve();
      steps.push(clock.now());
      await clock.sleep(100);
      steps.push(clock.now());
    }, 100);
    await clock.advance(250);
    expect(steps).toEqual([100, 200]);
  });

  it('sleep resolves on advance and rejects with the abort reason', async () => {
    const clock = createManualClock();
    let woke = false;
    const nap = clock.sleep(500).then(() => (woke = true));
    await clock.advance(499);
    expect(woke).toBe(false);
    await clock.advance(1);
    await nap;
    expect(woke).toBe(true);

    const ac = new AbortController();
    const interrupted = clock.sleep(10_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(interrupted).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
  });
});
