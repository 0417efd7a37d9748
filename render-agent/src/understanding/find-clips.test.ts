import { describe, expect, it } from 'vitest';
import { ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { findClips } from './find-clips.ts';
import { bagOfWordsEmbedder, sentencesFrom, seededRandom, timedTranscript } from './test-fixtures.ts';

const VOCABULARY = [
  'bees hive honey queen comb wax nectar pollen swarm frames brood colony beekeeper smoker',
  'bicycle wheel pedals chain frame saddle tyre gears rider cycling road velocipede sprocket',
  'sourdough starter flour water dough loaf crust crumb oven yeast bakers proofing gluten salt',
  'solar panel silicon photon inverter current grid battery roof sunlight efficiency module',
].map((v) => v.split(' '));

/** Topics of `perTopic` sentences each, sentence lengths and pauses drawn at random. */
function randomTalk(seed: number, topics: number, perTopic: number): TranscriptV2 {
  const rng = seededRandom(seed);
  const texts = Array.from({ length: topics }, (_, k) => sentencesFrom(rng, VOCABULARY[k % VOCABULARY.length]!, perTopic)).flat();
  return timedTranscript(texts.map((text) => ({ text, seconds: 2 + rng() * 10, pauseAfter: rng() < 0.03 ? 5 + rng() * 20 : 0.1 + rng() })));
}

/** 100 % snapped and of clip length, against the transcript's own sentences. */
function expectSnapped(doc: ClipsV1, t: TranscriptV2) {
  const sentences = sentencesOf(t);
  for (const c of doc.candidates) {
    expect(c.start).toBe(sentences[c.first_sentence]!.start);
    expect(c.end).toBe(sentences[c.last_sentence]!.end);
    expect(c.duration).toBeGreaterThanOrEqual(120);
    expect(c.duration).toBeLessThanOrEqual(300);
    expect(c.text).toBe(
      sentences
        .slice(c.first_sentence, c.last_sentence + 1)
        .map((s) => s.text)
        .join(' '),
    );
  }
}

describe('findClips (pure parts, bag-of-words embeddings)', () => {
  it('best mode: ranked, sentence-snapped 120-300 s candidates with extractive texts, a valid ClipsV1 document', async () => {
    const t = randomTalk(1, 4, 35);
    const doc = await findClips({ transcript: t, embedder: bagOfWordsEmbedder() });
    expect(ClipsV1.safeParse(doc).success).toBe(true);
    expect(doc.mode).toBe('best');
    expect(doc.candidates.length).toBeGreaterThanOrEqual(3);
    expect(doc.candidates.map((c) => c.rank)).toEqual(doc.candidates.map((_, i) => i + 1));
    expect(doc.candidates.map((c) => c.id)).toEqual(doc.candidates.map((_, i) => `c${i + 1}`));
    const scores = doc.candidates.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expectSnapped(doc, t);
    expect(doc.generator).toMatchObject({ embedder: 'bag-of-words (test)', text_generator: 'extractive' });
    expect(doc.generator.segmentation.boundaries.length).toBeGreaterThanOrEqual(2);
    for (const c of doc.candidates) expect(c.texts_source).toEqual({ title: 'extractive', hook: 'extractive', summary: 'extractive' });
    for (const k of ['embeddings', 'segmentation', 'candidates', 'generation', 'total'] as const) expect(doc.generator.timings_ms[k]).toBeGreaterThanOrEqual(0);
  });

  it('100 % of candidates are sentence-snapped and 120-300 s over random talks', async () => {
    const embedder = bagOfWordsEmbedder();
    let count = 0;
    for (let seed = 100; seed < 130; seed++) {
      const t = randomTalk(seed, 1 + (seed % 4), 10 + ((seed * 7) % 60));
      const doc = await findClips({ transcript: t, embedder, query: seed % 3 === 0 ? 'honey from the hive' : null });
      expectSnapped(doc, t);
      count += doc.candidates.length;
    }
    expect(count).toBeGreaterThan(40);
  });

  it('a recording shorter than a clip gets no candidates and a note, not an error', async () => {
    const t = timedTranscript([
      { text: 'This is a short voice note about the weekend.', seconds: 3 },
      { text: 'See you at nine.', seconds: 1.5 },
    ]);
    t.duration = 95;
    const doc = await findClips({ transcript: t, embedder: bagOfWordsEmbedder(), query: 'weekend' });
    expect(doc.candidates).toEqual([]);
    expect(doc.mode).toBe('query');
    expect(doc.notes).toEqual([expect.stringMatching(/^the recording is 95 s long with 5 s of speech: shorter than a 120 s clip; no candidates$/)]);
    const empty = await findClips({ transcript: { version: 2, language: 'en', duration: 0, segments: [] }, embedder: bagOfWordsEmbedder() });
    expect(empty.candidates).toEqual([]);
  });

  it('generated texts replace the extractive ones field by field; null keeps the floor', async () => {
    const t = randomTalk(2, 3, 35);
    const asked: string[] = [];
    const doc = await findClips({
      transcript: t,
      embedder: bagOfWordsEmbedder(),
      generatorId: 'test-llm',
      generate: async (c) => {
        asked.push(c.id);
        expect(c.sentences.join(' ')).toBe(c.text);
        expect(c.extractive.hook.length).toBeGreaterThan(0);
        if (c.id === 'c1') return { title: 'Generated title', hook: 'Generated hook.', summary: 'Generated summary.' };
        if (c.id === 'c2') return { title: 'Only a title', summary: '  ' };
        return null;
      },
    });
    expect(asked).toEqual(doc.candidates.map((c) => c.id));
    expect(doc.generator.text_generator).toBe('test-llm');
    const [c1, c2, c3] = doc.candidates;
    expect(c1).toMatchObject({ title: 'Generated title', texts_source: { title: 'generated', hook: 'generated', summary: 'generated' } });
    expect(c2).toMatchObject({ title: 'Only a title', texts_source: { title: 'generated', hook: 'extractive', summary: 'extractive' } });
    expect(c3?.texts_source).toEqual({ title: 'extractive', hook: 'extractive', summary: 'extractive' });
  });

  it('stops when aborted, and refuses an over-long query before any work', async () => {
    const t = randomTalk(4, 2, 35);
    const ac = new AbortController();
    ac.abort(new Error('attempt cancelled'));
    await expect(findClips({ transcript: t, embedder: bagOfWordsEmbedder(), signal: ac.signal })).rejects.toThrow('attempt cancelled');
    await expect(findClips({ transcript: t, embedder: bagOfWordsEmbedder(), query: 'x'.repeat(501) })).rejects.toThrow(/1-500 characters/);
  });

  it('query mode ranks by match and says why', async () => {
    const t = randomTalk(3, 4, 35);
    const doc = await findClips({ transcript: t, embedder: bagOfWordsEmbedder(), query: 'sourdough loaf crust' });
    expect(doc).toMatchObject({ mode: 'query', query: 'sourdough loaf crust' });
    expect(doc.candidates.length).toBeGreaterThan(0);
    const matches = doc.candidates.map((c) => c.match!.score);
    expect(matches).toEqual([...matches].sort((a, b) => b - a));
    expect(doc.candidates[0]!.match!.matched_terms).toEqual(['sourdough', 'loaf', 'crust']);
    expectSnapped(doc, t);
  });
});
