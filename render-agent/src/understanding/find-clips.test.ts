import { describe, expect, it } from 'vitest';
import { ClipTarget } from '@cutroom/shared/clips/clip-targets';
import { ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { findClips } from './find-clips.ts';
import type { Span } from './candidates.ts';
import { bagOfWordsEmbedder, sentencesFrom, seededRandom, timedTranscript } from './test-fixtures.ts';

const VOCABULARY = [
  'bees hive honey queen comb wax nectar pollen swarm frames brood colony beekeeper smoker',
  'bicycle wheel pedals chain frame saddle tyre gears rider cycling road velocipede sprocket',
  'sourdough starter flour water dough loaf crust crumb oven yeast bakers proofing gluten salt',
  'solar panel silicon photon inverter current grid battery roof sunlight efficiency module',
  'chess opening pawn knight bishop castle gambit endgame board rook checkmate defence tempo',
].map((v) => v.split(' '));

/** Topics of `perTopic` sentences each, sentence lengths and pauses drawn at random. */
function randomTalk(seed: number, topics: number, perTopic: number): TranscriptV2 {
  const rng = seededRandom(seed);
  const texts = Array.from({ length: topics }, (_, k) => sentencesFrom(rng, VOCABULARY[k % VOCABULARY.length]!, perTopic)).flat();
  return timedTranscript(texts.map((text) => ({ text, seconds: 2 + rng() * 10, pauseAfter: rng() < 0.03 ? 5 + rng() * 20 : 0.1 + rng() })));
}

/**
 * A talk of topics on distinct vocabularies, each about `seconds[k]` long (sentences of 3-7 s,
 * pauses of 0.2-0.8 s drawn at random), with each topic's true sentence range.
 */
function talkOfTopics(seed: number, seconds: readonly number[]): { t: TranscriptV2; topics: Span[] } {
  const rng = seededRandom(seed);
  const timed: { text: string; seconds: number; pauseAfter: number }[] = [];
  const topics: Span[] = [];
  for (const [k, length] of seconds.entries()) {
    const first = timed.length;
    for (let used = 0; used < length - 2; ) {
      const sentence = { text: sentencesFrom(rng, VOCABULARY[k % VOCABULARY.length]!, 1)[0]!, seconds: 3 + rng() * 4, pauseAfter: 0.2 + rng() * 0.6 };
      timed.push(sentence);
      used += sentence.seconds + sentence.pauseAfter;
    }
    topics.push({ first, last: timed.length - 1 });
  }
  return { t: timedTranscript(timed), topics };
}

/** The true topic holding each candidate's first sentence: the candidate must end inside it too. */
function expectInsideTopics(doc: ClipsV1, topics: readonly Span[]) {
  for (const c of doc.candidates) {
    const topic = topics.find((x) => c.first_sentence >= x.first && c.first_sentence <= x.last)!;
    expect(c.last_sentence, `${c.id} ${c.first_sentence}-${c.last_sentence} leaves topic ${topic.first}-${topic.last}`).toBeLessThanOrEqual(topic.last);
  }
}

const topicsWithCandidates = (doc: ClipsV1, topics: readonly Span[]) =>
  topics.filter((x) => doc.candidates.some((c) => c.first_sentence >= x.first && c.last_sentence <= x.last)).length;

/**
 * 100 % snapped, of the length the document's target names, and inside one of the topics the
 * document reports: never on the tail of one nor partway into the next.
 */
function expectSnapped(doc: ClipsV1, t: TranscriptV2) {
  const sentences = sentencesOf(t);
  const topicStarts = doc.generator.segmentation.boundaries.map((b) => sentences.findIndex((x) => x.start === b));
  expect(topicStarts).not.toContain(-1);
  for (const c of doc.candidates) {
    expect(c.start).toBe(sentences[c.first_sentence]!.start);
    expect(c.end).toBe(sentences[c.last_sentence]!.end);
    expect(c.duration).toBeGreaterThanOrEqual(doc.target!.min_seconds);
    expect(c.duration).toBeLessThanOrEqual(doc.target!.max_seconds);
    expect(
      topicStarts.filter((b) => b > c.first_sentence && b <= c.last_sentence),
      `${c.id} crosses a topic boundary`,
    ).toEqual([]);
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

  it('100 % of candidates are sentence-snapped, of their target’s length and inside topics over random talks, at every target', async () => {
    const embedder = bagOfWordsEmbedder();
    const counts = new Map<string, number>();
    for (let seed = 100; seed < 130; seed++) {
      const t = randomTalk(seed, 1 + (seed % 4), 10 + ((seed * 7) % 60));
      // The default on every talk, and one target in turn (the fast tier's time).
      for (const target of [null, ClipTarget.options[seed % 3]!]) {
        const doc = await findClips({ transcript: t, embedder, query: seed % 3 === 0 ? 'honey from the hive' : null, target });
        expect(doc.target?.requested).toBe(target);
        expectSnapped(doc, t);
        counts.set(String(target), (counts.get(String(target)) ?? 0) + doc.candidates.length);
      }
    }
    expect(counts.get('null')).toBeGreaterThan(40);
    for (const target of ClipTarget.options) expect(counts.get(target), target).toBeGreaterThan(10);
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
    expect(doc.notes).toEqual([expect.stringMatching(/^the recording is 95 s long with 5 s of speech: shorter than a 15 s clip; no candidates$/)]);
    expect(doc.target).toEqual({ requested: null, min_seconds: 15, max_seconds: 300 });
    const long = await findClips({ transcript: t, embedder: bagOfWordsEmbedder(), target: 'long' });
    expect(long.notes).toEqual(['the recording is 95 s long with 5 s of speech: shorter than a 120 s clip; no candidates']);
    expect(long.target).toEqual({ requested: 'long', min_seconds: 120, max_seconds: 300 });
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

describe('findClips sized by target, inside the topics', () => {
  const embedder = bagOfWordsEmbedder();

  it('a 3.4-minute talk of three ~70 s topics, no target: no candidate crosses a topic, each topic gets its own (the reported case)', async () => {
    for (const seed of [1, 2, 3]) {
      const { t, topics } = talkOfTopics(seed, [70, 70, 65]);
      const doc = await findClips({ transcript: t, embedder });
      expect(doc.target).toEqual({ requested: null, min_seconds: 15, max_seconds: 300 });
      expect(doc.notes[0]).toMatch(/^no topic lasts 120 s, the shortest default clip: the candidates fit the recording's own topics \(15-300 s\)/);
      expectInsideTopics(doc, topics);
      expect(topicsWithCandidates(doc, topics), `seed ${seed}`).toBe(3);
      for (const c of doc.candidates) expect(c.duration).toBeLessThan(75);
    }
  });

  it('the same talk with target long has no candidate and says which topics are too short; medium fits every topic', async () => {
    const { t, topics } = talkOfTopics(1, [70, 70, 65]);
    const long = await findClips({ transcript: t, embedder, target: 'long' });
    expect(long.candidates).toEqual([]);
    expect(long.notes).toEqual([
      expect.stringMatching(
        /^3 of 3 topics are shorter than 120 s, the long target's shortest clip: 0:00-1:\d\d \(\d+ s\), .*; no candidate lies in them alone \(target medium, 60-180 s, fits them\)$/,
      ),
      'no stretch of whole sentences inside one topic fits a 120-300 s clip; no candidates',
    ]);
    const medium = await findClips({ transcript: t, embedder, target: 'medium' });
    expect(medium.target).toEqual({ requested: 'medium', min_seconds: 60, max_seconds: 180 });
    expectInsideTopics(medium, topics);
    expect(topicsWithCandidates(medium, topics)).toBe(3);
  });

  it('a 6-minute topic with target short gives 15-60 s candidates inside it, spread over it', async () => {
    const { t, topics } = talkOfTopics(4, [60, 360, 60]);
    const doc = await findClips({ transcript: t, embedder, target: 'short' });
    expect(doc.target).toEqual({ requested: 'short', min_seconds: 15, max_seconds: 60 });
    expectSnapped(doc, t);
    expectInsideTopics(doc, topics);
    const inLong = doc.candidates.filter((c) => c.first_sentence >= topics[1]!.first && c.last_sentence <= topics[1]!.last);
    expect(inLong.length).toBeGreaterThanOrEqual(4);
    for (const c of doc.candidates) expect(c.duration).toBeLessThanOrEqual(60);
    // The other two topics are offered too (one candidate each at least).
    expect(topicsWithCandidates(doc, topics)).toBe(3);
  });

  it('a recording shorter than 120 s, no target: candidates fit its own topics', async () => {
    for (const seed of [5, 6]) {
      const { t, topics } = talkOfTopics(seed, [50, 45]);
      expect(t.duration).toBeLessThan(120);
      const doc = await findClips({ transcript: t, embedder });
      expect(doc.target).toEqual({ requested: null, min_seconds: 15, max_seconds: 300 });
      expectInsideTopics(doc, topics);
      expect(topicsWithCandidates(doc, topics)).toBe(2);
      for (const c of doc.candidates) expect(c.duration).toBeLessThanOrEqual(51);
    }
  });

  it('offers at least one candidate per topic long enough for the target when maxCandidates allows', async () => {
    for (const seed of [7, 11, 12]) {
      const { t, topics } = talkOfTopics(seed, [360, 40, 45, 40]);
      // Four topics, four candidates: the 6-minute topic's many windows do not crowd out the short ones.
      const doc = await findClips({ transcript: t, embedder, target: 'short', maxCandidates: 4 });
      expect(doc.generator.segmentation.boundaries).toHaveLength(3);
      expect(doc.candidates).toHaveLength(4);
      expectInsideTopics(doc, topics);
      expect(topicsWithCandidates(doc, topics), `seed ${seed}`).toBe(4);
      // Still ranked by score.
      const scores = doc.candidates.map((c) => c.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it('a topic shorter than the target’s minimum gets no candidate and a note naming it', async () => {
    const { t, topics } = talkOfTopics(8, [40, 200]);
    const doc = await findClips({ transcript: t, embedder, target: 'medium' });
    expect(doc.notes[0]).toMatch(
      /^1 of 2 topics is shorter than 60 s, the medium target's shortest clip: 0:00-0:\d\d \(\d+ s\); no candidate lies in it alone \(target short, 15-60 s, fits it\)$/,
    );
    expect(doc.candidates.length).toBeGreaterThan(0);
    for (const c of doc.candidates) expect(c.first_sentence).toBeGreaterThanOrEqual(topics[1]!.first);
    // Under short, a recording with less than 15 s of speech has none, and says so.
    const tiny = timedTranscript([
      { text: 'Bees make honey in the hive all summer long.', seconds: 6 },
      { text: 'The queen lays the eggs.', seconds: 4 },
    ]);
    const none = await findClips({ transcript: tiny, embedder, target: 'short' });
    expect(none.candidates).toEqual([]);
    expect(none.notes).toEqual([expect.stringMatching(/with 10 s of speech: shorter than a 15 s clip; no candidates$/)]);
  });

  it('query mode keeps the target’s lengths and the peak’s topic', async () => {
    const { t, topics } = talkOfTopics(9, [150, 150, 150]);
    const doc = await findClips({ transcript: t, embedder, query: 'sourdough loaf crust', target: 'short' });
    expect(doc.candidates.length).toBeGreaterThan(0);
    expectSnapped(doc, t);
    expectInsideTopics(doc, topics);
    const top = doc.candidates[0]!;
    expect(top.first_sentence).toBeGreaterThanOrEqual(topics[2]!.first);
    expect(top.duration).toBeLessThanOrEqual(60);
  });

  it('tells the text model which words of a candidate the recognizer was unsure of', async () => {
    const { t } = talkOfTopics(10, [150, 150]);
    // Every "sprocket" heard at 0.2: unsure wherever it occurs; one "honey" at 0.2 but the others at 0.9: sure.
    let honey = 0;
    for (const w of t.segments.flatMap((x) => x.words)) {
      if (/^sprocket/i.test(w.word)) w.probability = 0.2;
      if (/^honey/i.test(w.word) && honey++ === 0) w.probability = 0.2;
    }
    const seen = new Map<string, string[]>();
    const doc = await findClips({
      transcript: t,
      embedder,
      generate: async (c) => {
        seen.set(
          c.id,
          c.unsure.map((u) => `${u.word} ${u.probability}`),
        );
        return null;
      },
    });
    const withSprocket = doc.candidates.filter((c) => /sprocket/i.test(c.text));
    const without = doc.candidates.filter((c) => !/sprocket/i.test(c.text));
    expect(withSprocket.length).toBeGreaterThan(0);
    expect(without.length).toBeGreaterThan(0);
    for (const c of withSprocket) expect(seen.get(c.id)).toEqual(['sprocket 0.2']);
    for (const c of without) expect(seen.get(c.id)).toEqual([]);
    // The extractive title and hook avoid it.
    for (const c of doc.candidates) expect(`${c.title} ${c.hook}`).not.toMatch(/sprocket/i);
  });
});
