import { describe, expect, it } from 'vitest';
import { capChars, leadingSentencesWithin, promptCharsFor, spreadWithin, withoutCutOff } from './prompt-budget.ts';

describe('prompt budget', () => {
  const sentences = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} says something worth hearing.`);

  it('passes text that fits, and spreads text that does not over the whole passage', () => {
    expect(spreadWithin(sentences.slice(0, 3), 1000)).toBe(sentences.slice(0, 3).join(' '));
    const spread = spreadWithin(sentences, 2000);
    expect(spread.length).toBeLessThanOrEqual(2000);
    expect(spread.startsWith('Sentence number 0 ')).toBe(true);
    expect(spread).toContain('[…]');
    // The last fifth of the passage is represented, not cut off.
    expect(Number(/Sentence number (\d+)[^\d]*$/.exec(spread.replace(/ \[…\]$/, ''))![1])).toBeGreaterThan(160);
  });

  it('keeps whole leading sentences, and cuts at a word only when it must', () => {
    expect(leadingSentencesWithin('One two. Three four. Five six.', 20)).toBe('One two. Three four.');
    expect(leadingSentencesWithin('A very long first sentence without an end in sight', 20)).toBe('A very long first s…');
    expect(capChars('short', 10)).toBe('short');
    expect(capChars('a long text that is cut at a word', 16)).toBe('a long text…');
    expect(promptCharsFor('ja')).toBeLessThan(promptCharsFor('en'));
  });

  it('drops an unfinished last sentence cut at the length cap', () => {
    expect(withoutCutOff('Bees make honey. Back in the hive, the necta', 44)).toEqual({ text: 'Bees make honey.', cut: 'Back in the hive, the necta' });
    expect(withoutCutOff('Solar panels convert sunlight into electricity, with panels d', 61)).toEqual({
      text: '',
      cut: 'Solar panels convert sunlight into electricity, with panels d',
    });
    expect(withoutCutOff('Bees make honey. Back in the hive', 200)).toEqual({ text: 'Bees make honey. Back in the hive', cut: null });
    expect(withoutCutOff('Bees make honey.', 16)).toEqual({ text: 'Bees make honey.', cut: null });
  });
});
