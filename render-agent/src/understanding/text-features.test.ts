import { describe, expect, it } from 'vitest';
import { contentStems, hookSignalsOf, hookWordingOf, openingOf, stem, tokenize } from './text-features.ts';

describe('text features', () => {
  it('tokenize keeps inner apostrophes and numbers, drops punctuation', () => {
    expect(tokenize('It’s 2,000 bees — isn\'t it? "Yes."')).toEqual(["it's", '2', '000', 'bees', "isn't", 'it', 'yes']);
  });

  it('stem collapses plural and verb forms onto one stem', () => {
    const same = (...words: string[]) => expect(new Set(words.map(stem)).size).toBe(1);
    same('bee', 'bees');
    same('bake', 'baking', 'baked');
    same('opening', 'openings');
    same('hop', 'hopping');
    same('colony', 'colonies');
    same('panel', 'panels');
    expect(stem('chess')).toBe('chess');
    expect(stem('2010')).toBe('2010');
    expect(contentStems('The bees are making honey')).toEqual(['bee', 'mak', 'honey']);
  });

  it('openingOf tells connectives, back-references and replies from clean openings', () => {
    expect(openingOf('And then the queen left.').kind).toBe('connective');
    expect(openingOf('But it was too late.').kind).toBe('connective');
    expect(openingOf('They built it in 1817.').kind).toBe('back_reference');
    expect(openingOf('Yeah, exactly that.').kind).toBe('answer');
    expect(openingOf('The bicycle is two hundred years old.')).toEqual({ word: 'the', kind: 'clean' });
  });

  it('hook signals: question, number, claim word, addressing the listener', () => {
    const s = hookSignalsOf('Why do you think the best chess players memorize 10 moves?');
    expect(s).toMatchObject({ isQuestion: true, hasNumber: true, claimWord: 'best', addressesYou: true });
    expect(hookWordingOf(s)).toBeCloseTo(1);
    expect(hookWordingOf(hookSignalsOf('The dough rests for an hour in the fridge.'))).toBeCloseTo(0.15);
  });
});
