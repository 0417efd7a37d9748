import { describe, expect, it } from 'vitest';
import { numbersOf, splitSentences } from './grounding.ts';

// The embedding half of the rule is tested with the real model in test/grounding.test.ts.
describe('numbersOf', () => {
  it('reads digits and spelled-out numbers as the same canonical values', () => {
    expect([...numbersOf('We raised prices by 20% in 2015, on 1,200 cakes at $3.50.')]).toEqual(['20', '2015', '1200', '3.5']);
    expect([...numbersOf('about twenty percent, twenty-five tiers, three hundred and twenty orders, two thousand people')]).toEqual([
      '20',
      '25',
      '320',
      '2000',
    ]);
  });

  it('reads a thousands separator Whisper spaced out as one number', () => {
    expect([...numbersOf('a colony of 30 ,000 bees and 2 ,50 seeds')]).toEqual(['30000', '2', '50']);
  });

  it('reads multiples and leaves "one" alone', () => {
    expect([...numbersOf('Orders doubled, then halved; one of them tripled.')]).toEqual(['×2', '½', '×3']);
    expect(numbersOf('one of the best')).toEqual(new Set());
  });

  it('is not fooled by words that name object properties', () => {
    expect(numbersOf('the constructor of the prototype')).toEqual(new Set());
  });
});

describe('splitSentences', () => {
  it('splits at sentence ends but not at abbreviations, and drops list markers and wrapping quotes', () => {
    expect(splitSentences('Dr. Smith baked 3 cakes. Then she left! Did it work?')).toEqual(['Dr. Smith baked 3 cakes.', 'Then she left!', 'Did it work?']);
    expect(splitSentences('- First point.\n2. **Second** point\n"Quoted title"')).toEqual(['First point.', 'Second point', 'Quoted title']);
    expect(splitSentences('  \n ... \n')).toEqual([]);
  });
});
