import { describe, expect, it } from 'vitest';
import type { SummaryV1 } from '@cutroom/shared/summary/summary-v1';
import { descriptionOfSummary } from './publish-steps.ts';

const summary = {
  overview: 'Bread, then bees.',
  key_points: [{ text: 'A starter is wild yeast.' }, { text: 'A colony has one queen.' }],
  chapters: [
    { start: 3.2, end: 65, title: 'Sourdough' },
    { start: 65, end: 3700, title: 'Bees <and> honey' },
  ],
} as unknown as SummaryV1;

describe('a summary as a video description', () => {
  it('has the overview, the key points and chapters starting at 0:00 (the host makes chapters of them), without angle brackets', () => {
    expect(descriptionOfSummary(summary, 5000)).toBe(
      'Bread, then bees.\n\n• A starter is wild yeast.\n• A colony has one queen.\n\nChapters\n0:00 Sourdough\n1:05 Bees and honey',
    );
  });

  it('is cut at a word within the host limit', () => {
    const long = { ...summary, overview: 'word '.repeat(2000) } as SummaryV1;
    const d = descriptionOfSummary(long, 100);
    expect(d.length).toBeLessThanOrEqual(100);
    expect(d.endsWith('word…')).toBe(true);
  });
});
