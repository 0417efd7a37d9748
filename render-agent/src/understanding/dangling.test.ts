import { describe, expect, it } from 'vitest';
import { withoutDanglingOpenings } from './dangling.ts';

const run = (...xs: [string, boolean][]) => withoutDanglingOpenings(xs.map(([text, followsKept]) => ({ text, followsKept })));

describe('withoutDanglingOpenings', () => {
  it('takes a connective off a sentence that opens the text or follows a dropped one', () => {
    expect(run(['Also, bees need water in summer.', false]).kept).toEqual(['Bees need water in summer.']);
    expect(run(['The clip also explains how to prune.', false]).kept).toEqual(['The clip explains how to prune.']);
    expect(run(['Bees swarm in spring.', false], ['And the queen leaves.', true]).kept).toEqual(['Bees swarm in spring.', 'And the queen leaves.']);
  });
  it('drops a sentence that refers back to nothing, with the reason', () => {
    const r = run(['He then took manual control.', false], ['Eagle landed with little fuel left.', false]);
    expect(r.kept).toEqual(['Eagle landed with little fuel left.']);
    expect(r.dropped[0]).toMatchObject({ sentence: 'He then took manual control.', reason: expect.stringContaining('"he"') });
    expect(run(['Armstrong flew on.', false], ['He found a flat place.', true]).kept).toHaveLength(2);
  });
  it('keeps clean openings as they are', () => {
    expect(run(['Coffee comes from Ethiopia.', false]).kept).toEqual(['Coffee comes from Ethiopia.']);
  });
});
