import { describe, expect, it } from 'vitest';
import { capChars, KEY_CHARS, keyCharsFor, leadingSentencesWithin, withoutCutOff } from './prompt-budget.ts';

describe('prompt budget', () => {
  it('gives dense scripts a third of the key-sentence budget', () => {
    expect(keyCharsFor('en')).toBe(KEY_CHARS);
    expect(keyCharsFor('ja')).toBe(Math.floor(KEY_CHARS / 3));
  });

  it('keeps whole leading sentences, and cuts at a word only when it must', () => {
    expect(leadingSentencesWithin('One two. Three four. Five six.', 20)).toBe('One two. Three four.');
    expect(leadingSentencesWithin('A very long first sentence without an end in sight', 20)).toBe('A very long first s…');
    expect(capChars('short', 10)).toBe('short');
    expect(capChars('a long text that is cut at a word', 16)).toBe('a long text…');
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
