import { describe, expect, it } from 'vitest';
import { isUnsure, UNSURE_BELOW, unsureWordsOf, unsureWordsReason } from './unsure-words.ts';

const w = (word: string, probability: number) => ({ word, probability });

describe('unsure words', () => {
  it('are content words heard below the threshold; a function word or a sure word is not one', () => {
    expect(UNSURE_BELOW).toBe(0.5);
    expect(isUnsure(w('MySQL', 0.03))).toBe(true);
    expect(isUnsure(w('holes,', 0.49))).toBe(true);
    expect(isUnsure(w('holes,', 0.5))).toBe(false);
    expect(isUnsure(w('the', 0.05))).toBe(false);
    expect(isUnsure(w('velocipede', 0.93))).toBe(false);
  });

  it('of a clip: only the words heard unsure everywhere in it, each with its best probability, in order', () => {
    const words = [
      w('The', 0.9),
      w('MySQL', 0.03),
      w('bicycle', 0.23),
      w('was', 0.2),
      w('mysql,', 0.31),
      w('a', 0.4),
      w('bicycle.', 0.93),
      w('Reisville', 0.31),
    ];
    expect(unsureWordsOf(words)).toEqual([
      { word: 'mysql', probability: 0.31 },
      { word: 'reisville', probability: 0.31 },
    ]);
    expect(unsureWordsOf([])).toEqual([]);
  });

  it('refuses a title or hook that repeats one (any case, any punctuation), and passes one that does not', () => {
    const unsure = [
      { word: 'mysql', probability: 0.03 },
      { word: 'reisville', probability: 0.31 },
    ];
    expect(unsureWordsReason('How MySQL Built the Safety Bicycle', unsure)).toBe('repeats a word the recognizer was unsure of: “mysql” (0.03), below 0.5');
    expect(unsureWordsReason('From Reisville to mysql.', unsure)).toBe(
      'repeats words the recognizer was unsure of: “mysql” (0.03), “reisville” (0.31), below 0.5',
    );
    expect(unsureWordsReason('How the safety bicycle was built', unsure)).toBeNull();
    // A word that only contains an unsure one is another word.
    expect(unsureWordsReason('MySQLite', unsure)).toBeNull();
    expect(unsureWordsReason('Anything', [])).toBeNull();
  });
});
