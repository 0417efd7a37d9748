import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runSerially } from './relayer-queue.ts';

describe('runSerially', () => {
  it('runs calls with one key one after another, in call order, even when one fails', async () => {
    const log: string[] = [];
    const job =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await sleep(ms);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([runSerially('k', job('a', 20)), runSerially('k', job('b', 5, true)), runSerially('k', job('c', 1))]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('lets different keys run side by side', async () => {
    const log: string[] = [];
    const job = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
    };
    await Promise.all([runSerially('x', job('x', 20)), runSerially('y', job('y', 1))]);
    expect(log).toEqual(['start x', 'start y', 'end y', 'end x']);
  });
});
