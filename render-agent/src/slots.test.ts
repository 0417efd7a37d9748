import { describe, expect, it } from 'vitest';
import { freeKinds, parseSlots } from './slots.ts';

const big = { cores: 2, memoryBytes: 8 * 1024 ** 3 };
const small = { cores: 1, memoryBytes: 8 * 1024 ** 3 };

describe('parseSlots', () => {
  it('runs one job of each kind at once on a host of 2 cores and 4 GB, one job in all on a smaller one', () => {
    expect(parseSlots(undefined, big)).toEqual({ perKind: { transcribe: 1, cut: 1, understand: 1 }, total: 3 });
    expect(parseSlots(undefined, small).total).toBe(1);
    expect(parseSlots('', { cores: 4, memoryBytes: 2 * 1024 ** 3 }).total).toBe(1);
  });

  it('takes a number for every kind, or kind=n pairs with an optional total', () => {
    expect(parseSlots('2', small)).toEqual({ perKind: { transcribe: 2, cut: 2, understand: 2 }, total: 6 });
    expect(parseSlots('cut=2, understand=1', small)).toEqual({ perKind: { transcribe: 1, cut: 2, understand: 1 }, total: 4 });
    expect(parseSlots('cut=2,total=2', small)).toEqual({ perKind: { transcribe: 1, cut: 2, understand: 1 }, total: 2 });
  });

  it('refuses what it cannot read, naming it', () => {
    expect(() => parseSlots('gpu=1', big)).toThrow(/"gpu" is not a work kind \(transcribe, cut, understand\) nor total/);
    expect(() => parseSlots('cut=0', big)).toThrow(/cut must be a whole number from 1 to 64, not "0"/);
    expect(() => parseSlots('1.5', big)).toThrow(/AGENT_SLOTS/);
  });
});

describe('freeKinds', () => {
  const slots = parseSlots(undefined, big);
  it('offers the kinds with a free slot while the total allows', () => {
    expect(freeKinds(slots, new Map(), ['transcribe', 'understand'])).toEqual(['transcribe', 'understand']);
    // A long summarize (understand) runs: a transcribe can still start.
    expect(freeKinds(slots, new Map([['understand', 1]]), ['transcribe', 'understand'])).toEqual(['transcribe']);
    expect(
      freeKinds(
        slots,
        new Map([
          ['understand', 1],
          ['transcribe', 1],
        ]),
        ['transcribe', 'understand'],
      ),
    ).toEqual([]);
    // One job in all: nothing else while it runs.
    expect(freeKinds(parseSlots(undefined, small), new Map([['understand', 1]]), ['transcribe', 'understand'])).toEqual([]);
  });
});
