import { describe, expect, it } from 'vitest';
import { endsSentence, sentencesOf } from './sentences.ts';
import type { TranscriptV2 } from './transcript-v2.ts';

/** Words 0.3 s long with 0.1 s gaps, a segment per call; `|` inserts a 2 s pause. */
function transcript(text: string, language = 'en'): TranscriptV2 {
  let t = 0;
  const words = [];
  for (const w of text.split(' ')) {
    if (w === '|') {
      t += 2;
      continue;
    }
    words.push({ start: t, end: t + 0.3, word: w, probability: 0.9 });
    t += 0.4;
  }
  return { version: 2, language, duration: t, segments: [{ id: 0, start: 0, end: t, text, words }] };
}

describe('sentences', () => {
  it('end at terminal punctuation, not at abbreviations or initials', () => {
    expect(endsSentence('them.')).toBe(true);
    expect(endsSentence('really?"')).toBe(true);
    expect(endsSentence('Mr.')).toBe(false);
    expect(endsSentence('J.')).toBe(false);
    expect(endsSentence('U.S.')).toBe(false);
    expect(endsSentence('said,')).toBe(false);
    const s = sentencesOf(transcript('Mr. Smith met Dr. J. Doe. Then they left! Did they?'));
    expect(s.map((x) => x.text)).toEqual(['Mr. Smith met Dr. J. Doe.', 'Then they left!', 'Did they?']);
    expect(s.map((x) => [x.firstWord, x.endWord])).toEqual([
      [0, 6],
      [6, 9],
      [9, 11],
    ]);
    expect(s[1]!.start).toBeCloseTo(2.4);
  });

  it('split unpunctuated speech at pauses and overlong runs at their widest pause, covering every word once', () => {
    expect(sentencesOf(transcript('no punctuation here | and more after a pause')).map((s) => s.text)).toEqual([
      'no punctuation here',
      'and more after a pause',
    ]);
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const s = sentencesOf(transcript(long), { maxSeconds: 30 });
    expect(s.length).toBeGreaterThan(2);
    for (const x of s) expect(x.end - x.start).toBeLessThanOrEqual(30);
    expect(s.map((x) => x.endWord - x.firstWord).reduce((a, b) => a + b)).toBe(200);
    expect(s.every((x, i) => i === 0 || x.firstWord === s[i - 1]!.endWord)).toBe(true);
  });

  it('join words without spaces for scripts without them, and survive an empty transcript', () => {
    expect(sentencesOf(transcript('今日は 晴れ です。', 'ja'))[0]!.text).toBe('今日は晴れです。');
    expect(sentencesOf({ version: 2, language: 'en', duration: 0, segments: [] })).toEqual([]);
  });

  it("join Whisper's attached pieces to the word before them, as the subtitles do", () => {
    // Whisper writes "man-eating" as "Two", "-man", "-eat", "ing" pieces, and "it's" as "it", "'s".
    expect(sentencesOf(transcript("The Two -man -eat lions of Tsavo , it 's said , were huge ."))[0]!.text).toBe(
      "The Two-man-eat lions of Tsavo, it's said, were huge.",
    );
  });
});
