import { describe, expect, it } from 'vitest';
import { summaryLineEnd, unquote, upTo } from './answer-stop.ts';

describe('summaryLineEnd', () => {
  const end = summaryLineEnd('Summary 2');
  const cut = (answer: string) => upTo(answer, end);

  it('ends the answer after the first sentence of the labelled line, once the next character shows it ended', () => {
    expect(cut('Title 2: Bees\nSummary 2: A colony has one queen. It also has drones.')).toBe('Title 2: Bees\nSummary 2: A colony has one queen.');
    expect(end.test('Title 2: Bees\nSummary 2: A colony has one queen.')).toBe(false);
    expect(end.test('Title 2: Bees\nSummary 2: A colony has one queen.\n')).toBe(true);
    expect(cut('**Summary 2:** "Bikes changed travel." Then more.')).toBe('**Summary 2:** "Bikes changed travel."');
    expect(cut('Summary 2: Did it work? Yes.')).toBe('Summary 2: Did it work?');
  });

  it('does not end at a decimal point, an abbreviation, or a sentence of another line', () => {
    expect(end.test('Summary 2: The panel gives 3.5 kilowatts')).toBe(false);
    expect(end.test('Summary 2: Dr. Smith founded it')).toBe(false);
    expect(end.test('Summary 2: Boats, cars, etc. are slower')).toBe(false);
    expect(end.test('Title 2: The end. Of it.\nSummary 2: Still going')).toBe(false);
    expect(end.test('Summary 1: Done. Over.\nSummary 2: not yet')).toBe(false);
    expect(cut('Summary 2: Dr. Smith founded it in 1901. Later on.')).toBe('Summary 2: Dr. Smith founded it in 1901.');
  });

  it('leaves an answer that never matches whole', () => {
    expect(cut('Title 2: Bees\nSummary 2:\nA colony. Two.')).toBe('Title 2: Bees\nSummary 2:\nA colony. Two.');
    expect(upTo('  as it was ', undefined)).toBe('as it was');
  });
});

describe('unquote', () => {
  it('takes off quotes around a field, and an opening double quote that never closes', () => {
    expect(unquote(' "Bees in spring" ')).toBe('Bees in spring');
    expect(unquote('“Bees.”')).toBe('Bees.');
    expect(unquote('"Each plant needs a pot of compost.')).toBe('Each plant needs a pot of compost.');
    expect(unquote('The "queen" rules.')).toBe('The "queen" rules.');
    expect(unquote('"The queen" rules.')).toBe('"The queen" rules.');
    expect(unquote("'Tis the season.")).toBe("'Tis the season.");
  });
});
