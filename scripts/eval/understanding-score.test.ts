import { describe, expect, it } from 'vitest';
import { conveys, crossesBoundary, isOrphaned, judgeSentence, numbersIn, scoreBoundaries, sentencesOfText, unsureWordsIn } from './understanding-score.ts';
import { UNDERSTANDING_SET } from './understanding-set.ts';

const moon = UNDERSTANDING_SET.find((t) => t.name === 'one-long-topic')!.topics[0]!;

describe('numbersIn', () => {
  it('reads digits, number words and years read in pairs', () => {
    expect([...numbersIn('On the sixteenth of July nineteen sixty nine')]).toEqual(expect.arrayContaining([16, 1969]));
    expect(numbersIn('the building dates from nineteen oh four').has(1904)).toBe(true);
    expect(numbersIn('eighteen thousand runners').has(18000)).toBe(true);
    expect(numbersIn('1,250 people and 3.5 percent').has(1250)).toBe(true);
    expect(numbersIn('twenty one kilograms').has(21)).toBe(true);
  });
});

describe('judgeSentence', () => {
  it('keeps a faithful paraphrase and a generalisation', () => {
    expect(judgeSentence('Armstrong and Aldrin landed the Eagle in the Sea of Tranquility in 1969.', moon.text, moon.claims).isFaithful).toBe(true);
    expect(judgeSentence('The astronauts collected rock samples and left experiments on the moon.', moon.text, moon.claims).isFaithful).toBe(true);
  });
  it('refuses an invented number, an invented name and an invented claim', () => {
    expect(judgeSentence('Armstrong landed on the moon in 1890.', moon.text, moon.claims)).toMatchObject({
      isFaithful: false,
      reason: expect.stringContaining('1890'),
    });
    expect(judgeSentence('Yuri Gagarin watched the landing from Moscow.', moon.text, moon.claims)).toMatchObject({
      isFaithful: false,
      reason: expect.stringContaining('Gagarin'),
    });
    expect(judgeSentence('Political tensions shaped budgets, diplomacy and propaganda worldwide.', moon.text, moon.claims).isFaithful).toBe(false);
  });
});

describe('coverage, boundaries and texts', () => {
  it('conveys a claim only when every term is there', () => {
    const claim = { text: 'Collins orbited alone.', terms: ['collins', 'orbit|alone'] };
    expect(conveys(claim, 'Michael Collins stayed in orbit.')).toBe(true);
    expect(conveys(claim, 'Collins piloted the command module.')).toBe(false);
  });
  it('scores boundaries found, their error and spurious starts', () => {
    expect(scoreBoundaries([70, 140], [0, 72, 100])).toEqual({ found: 1, of: 2, meanError: 2, spurious: 1 });
  });
  it('flags orphaned openings, unsure words and crossings', () => {
    expect(isOrphaned('The clip also explains pruning')).toBe(true);
    expect(isOrphaned('Also, bees')).toBe(true);
    expect(isOrphaned('Pruning tomatoes on a balcony')).toBe(false);
    expect(
      unsureWordsIn('Throwing Tomatoes', [
        { word: ' throwing', probability: 0.2 },
        { word: ' tomatoes', probability: 0.9 },
      ]),
    ).toEqual(['throwing']);
    expect(crossesBoundary(60, 200, [70])).toBe(true);
    expect(crossesBoundary(71, 200, [70])).toBe(false);
    expect(sentencesOfText('One. Two three! 4 dogs?')).toEqual(['One.', 'Two three!', '4 dogs?']);
  });
});
