import { describe, expect, it } from 'vitest';
import { flattenWords, sentencesOf } from '@cutroom/shared/transcript/sentences';
import { extractiveSummary, extractiveTexts } from './extractive.ts';
import { isContentWord, tokenize } from './text-features.ts';
import { bagOfWordsEmbedder, sentencesFrom, seededRandom, timedTranscript } from './test-fixtures.ts';

const BEES = 'bees hive honey queen comb wax nectar pollen swarm frames brood colony beekeeper smoker'.split(' ');
const BIKES = 'bicycle wheel pedals chain frame saddle tyre gears rider cycling road velocipede sprocket'.split(' ');

async function talk(texts: string[]) {
  const transcript = timedTranscript(texts.map((text) => ({ text })));
  const sentences = sentencesOf(transcript);
  const embeddings = await bagOfWordsEmbedder().embed(sentences.map((s) => s.text));
  return { sentences, embeddings, words: flattenWords(transcript) };
}

describe('extractive texts (the floor)', () => {
  it('title is a phrase cut from one of the span’s sentences; hook and summary are its sentences verbatim, in order', async () => {
    const rng = seededRandom(3);
    const texts = [
      ...sentencesFrom(rng, BIKES, 10),
      'Why would anyone keep thirty thousand bees in the garden?',
      ...sentencesFrom(rng, BEES, 30),
      'The queen lays two thousand eggs a day in the brood comb.',
      ...sentencesFrom(rng, BEES, 10),
    ];
    const input = await talk(texts);
    const span = { first: 10, last: 51 };
    const own = input.sentences.slice(span.first, span.last + 1).map((s) => s.text);
    const x = extractiveTexts(input, span);

    const titleWords = x.title.split(' ');
    expect(titleWords.length).toBeGreaterThanOrEqual(2);
    expect(titleWords.length).toBeLessThanOrEqual(8);
    expect(own.some((s) => s.toLowerCase().includes(x.title.toLowerCase()))).toBe(true);
    expect(x.title.charAt(0)).toBe(x.title.charAt(0).toUpperCase());

    expect(x.hook).toBe('Why would anyone keep thirty thousand bees in the garden?');

    const picked = own.filter((s) => x.summary.includes(s));
    expect(picked.length).toBeGreaterThanOrEqual(1);
    expect(picked.length).toBeLessThanOrEqual(3);
    expect(picked.join(' ')).toBe(x.summary);
  });

  it('title and hook stay clear of words the recognizer was unsure of; without probabilities they take them', async () => {
    const rng = seededRandom(3);
    const texts = [
      ...sentencesFrom(rng, BIKES, 10),
      'Why would anyone keep thirty thousand bees in the garden?',
      ...sentencesFrom(rng, BEES, 30),
      'The queen lays two thousand eggs a day in the brood comb.',
      ...sentencesFrom(rng, BEES, 10),
    ];
    const { sentences, embeddings, words } = await talk(texts);
    const span = { first: 10, last: 51 };
    // The control: with every word sure (as without words), the hook is the question and the title a phrase.
    const sure = extractiveTexts({ sentences, embeddings, words }, span);
    expect(sure).toEqual(extractiveTexts({ sentences, embeddings }, span));
    expect(sure.hook).toBe('Why would anyone keep thirty thousand bees in the garden?');
    // Misheard: "thousand" in the question, and the title's first content word everywhere.
    const titleWord = tokenize(sure.title).find(isContentWord)!;
    const unsure = words.map((w, i) => {
      const inQuestion = i >= sentences[10]!.firstWord && i < sentences[10]!.endWord && /thousand/i.test(w.word);
      return inQuestion || tokenize(w.word)[0] === titleWord ? { ...w, probability: 0.2 } : w;
    });
    const careful = extractiveTexts({ sentences, embeddings, words: unsure }, span);
    expect(careful.hook).not.toBe(sure.hook);
    const hookSentence = sentences.find((x) => x.text === careful.hook)!;
    expect(unsure.slice(hookSentence.firstWord, hookSentence.endWord).every((w) => w.probability >= 0.5)).toBe(true);
    expect(tokenize(careful.title)).not.toContain(titleWord);
    expect(careful.title.split(' ').length).toBeGreaterThanOrEqual(2);
    // The summary is not held to it (whole sentences, verbatim).
    expect(careful.summary).toBe(sure.summary);
  });

  it('a whole-recording summary takes central sentences from every part, in time order', async () => {
    const rng = seededRandom(8);
    const texts = [...sentencesFrom(rng, BEES, 100), ...sentencesFrom(rng, BIKES, 100)];
    const { sentences, embeddings } = await talk(texts);
    const summary = extractiveSummary(sentences, embeddings, 6, { partSentences: 50 });
    expect(summary.sentences).toHaveLength(6);
    const idx = summary.sentences.map((s) => s.index);
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    // Four parts of 50 sentences, equal durations: each gives one or two.
    for (let p = 0; p < 4; p++) expect(idx.filter((i) => i >= 50 * p && i < 50 * (p + 1)).length).toBeGreaterThanOrEqual(1);
    expect(summary.text).toBe(summary.sentences.map((s) => s.text).join(' '));
    // Topics as parts.
    const byTopic = extractiveSummary(sentences, embeddings, 2, {
      parts: [
        { first: 0, last: 99 },
        { first: 100, last: 199 },
      ],
    });
    expect(byTopic.sentences.map((s) => s.index < 100)).toEqual([true, false]);
    expect(extractiveSummary([], [], 3)).toEqual({ sentences: [], text: '' });
  });
});
