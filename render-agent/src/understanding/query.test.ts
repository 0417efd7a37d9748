import { describe, expect, it } from 'vitest';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import { isClipSpan, spanSeconds } from './candidates.ts';
import { queryCandidates, sentenceMatches } from './query.ts';
import { bagOfWordsEmbedder, sentencesFrom, seededRandom, timedTranscript } from './test-fixtures.ts';

const VOCABULARY = {
  bees: 'bees hive honey queen comb wax nectar pollen swarm frames brood colony beekeeper smoker'.split(' '),
  bikes: 'bicycle wheel pedals chain frame saddle tyre gears rider cycling road velocipede sprocket'.split(' '),
  bread: 'sourdough starter flour water dough loaf crust crumb oven yeast bakers proofing gluten salt'.split(' '),
};

/** Three topics of 40 sentences (about 200 s each); returns sentences, embeddings and topic ranges. */
async function talk() {
  const rng = seededRandom(11);
  const texts = [...sentencesFrom(rng, VOCABULARY.bees, 40), ...sentencesFrom(rng, VOCABULARY.bikes, 40), ...sentencesFrom(rng, VOCABULARY.bread, 40)];
  const sentences = sentencesOf(timedTranscript(texts.map((text) => ({ text }))));
  const embedder = bagOfWordsEmbedder();
  const embeddings = await embedder.embed(sentences.map((s) => s.text));
  const topic = (k: number) => ({ start: sentences[40 * k]!.start, end: sentences[40 * k + 39]!.end });
  return { sentences, embeddings, embedder, topics: [topic(0), topic(1), topic(2)] };
}

describe('query mode', () => {
  it('finds the moment about the query, snapped to sentences, 120-300 s, with the matched terms and why', async () => {
    const { sentences, embeddings, embedder, topics } = await talk();
    const query = 'Baking a sourdough loaf with a starter';
    const [queryEmbedding] = await embedder.embed([query]);
    const hits = queryCandidates({ query, queryEmbedding: queryEmbedding!, sentences, embeddings });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(isClipSpan(sentences, h.span)).toBe(true);
    const top = hits[0]!;
    const start = sentences[top.span.first]!.start;
    const end = sentences[top.span.last]!.end;
    const inside = Math.min(end, topics[2]!.end) - Math.max(start, topics[2]!.start);
    expect(inside / spanSeconds(sentences, top.span)).toBeGreaterThanOrEqual(0.6);
    expect(top.match.matched_terms).toEqual(expect.arrayContaining(['sourdough', 'loaf', 'starter']));
    expect(top.match.lexical).toBeGreaterThan(0.4);
    expect(top.match.score).toBeGreaterThan(30);
    expect(top.match.why).toMatch(/^Matches “sourdough”.*closest sentence at \d+:\d\d \(similarity 0\.\d\d\): “.+”$/);
  });

  it('matches word forms through the stemmer (BM25), only where the words occur', async () => {
    const { sentences, embeddings, embedder } = await talk();
    const query = 'the hives of beekeepers';
    const [queryEmbedding] = await embedder.embed([query]);
    const m = sentenceMatches({ query, queryEmbedding: queryEmbedding!, sentences, embeddings });
    expect(m.terms.map((t) => t.words)).toEqual([['hives'], ['beekeepers']]);
    const lexicalBees = m.lexical.slice(0, 40).reduce((a, b) => a + b);
    expect(lexicalBees).toBeGreaterThan(0);
    expect(m.lexical.slice(40).every((x) => x === 0)).toBe(true);
  });

  it('returns nothing for a query nothing matches, and for a recording shorter than a clip', async () => {
    const { sentences, embeddings, embedder } = await talk();
    const query = 'quantum chromodynamics lattice';
    const [queryEmbedding] = await embedder.embed([query]);
    expect(queryCandidates({ query, queryEmbedding: queryEmbedding!, sentences, embeddings })).toEqual([]);
    const short = sentences.slice(0, 10);
    const [bees] = await embedder.embed(['honey bees']);
    expect(queryCandidates({ query: 'honey bees', queryEmbedding: bees!, sentences: short, embeddings: embeddings.slice(0, 10) })).toEqual([]);
  });
});
