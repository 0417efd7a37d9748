import { describe, expect, it } from 'vitest';
import { flattenWords, sentencesOf } from '@cutroom/shared/transcript/sentences';
import { SCORE_WEIGHTS, scoreSpan } from './score.ts';
import { bagOfWordsEmbedder, sentencesFrom, seededRandom, type TimedSentence, timedTranscript } from './test-fixtures.ts';

const GARDEN = 'bees hive honey queen comb wax nectar pollen swarm frames brood colony beekeeper smoker flowers'.split(' ');
const BIKES = 'bicycle wheel pedals chain frame saddle tyre gears rider cycling road velocipede sprocket handlebars'.split(' ');

/** Scores the last `clip.length` sentences after `before` (the talk preceding the clip). */
async function scoreOf(before: TimedSentence[], clip: TimedSentence[]) {
  const t = timedTranscript([...before, ...clip]);
  const sentences = sentencesOf(t);
  const embeddings = await bagOfWordsEmbedder().embed(sentences.map((s) => s.text));
  return scoreSpan({ sentences, words: flattenWords(t), embeddings }, { first: before.length, last: sentences.length - 1 });
}

const rng = seededRandom(5);
const bikeTalk = sentencesFrom(rng, BIKES, 6).map((text) => ({ text }));
const beeClip = sentencesFrom(rng, GARDEN, 25).map((text) => ({ text }));

describe('clip score', () => {
  it('is the weighted sum of six 0-100 components, with the weights and a reason naming the measurements', async () => {
    const q = await scoreOf(bikeTalk, beeClip);
    const keys = Object.keys(SCORE_WEIGHTS) as (keyof typeof SCORE_WEIGHTS)[];
    expect(Object.values(SCORE_WEIGHTS).reduce((a, b) => a + b)).toBeCloseTo(1);
    for (const k of keys) expect(Number.isInteger(q.components[k]) && q.components[k] >= 0 && q.components[k] <= 100).toBe(true);
    expect(q.score).toBe(Math.round(keys.reduce((sum, k) => sum + SCORE_WEIGHTS[k] * q.components[k], 0)));
    expect(q.reason).toMatch(/^Strongest: .+ \d+ \(.+\), .+ \d+ \(.+\); weakest: .+ \d+ \(.+\)\.$/);
    // Evenly timed words at 0.4 s each: 150 wpm less the pauses, inside the comfortable band.
    expect(q.facts.pace).toMatch(/^1[34]\d wpm$/);
    expect(q.components.pace).toBe(100);
  });

  it('stands_alone: a clip opening with a connective, or continuing the talk before it, scores lower', async () => {
    const clean = await scoreOf(bikeTalk, beeClip);
    const connective = await scoreOf(bikeTalk, [{ text: `And ${beeClip[0]!.text.toLowerCase()}` }, ...beeClip.slice(1)]);
    expect(connective.components.stands_alone).toBeLessThan(clean.components.stands_alone);
    expect(connective.facts.stands_alone).toContain('“and”');
    // The same bee clip after more bee talk: its opening is as close to what came before as to itself.
    const continued = await scoreOf(
      sentencesFrom(rng, GARDEN, 6).map((text) => ({ text })),
      beeClip,
    );
    expect(continued.components.stands_alone).toBeLessThan(clean.components.stands_alone);
  });

  it('hook_strength: a question with a number opens stronger than a plain sentence', async () => {
    const plain = await scoreOf(bikeTalk, beeClip);
    const hooked = await scoreOf(bikeTalk, [{ text: 'Why would you keep thirty thousand bees in a hive of honey?' }, ...beeClip.slice(1)]);
    expect(hooked.components.hook_strength).toBeGreaterThan(plain.components.hook_strength + 20);
    expect(hooked.facts.hook_strength).toMatch(/a question, a number/);
  });

  it('silence and pace: long pauses and rushed speech lower their components', async () => {
    const even = await scoreOf(bikeTalk, beeClip);
    const pausing = await scoreOf(
      bikeTalk,
      beeClip.map((s) => ({ ...s, pauseAfter: 3 })),
    );
    expect(pausing.components.silence).toBeLessThan(even.components.silence);
    expect(pausing.facts.silence).toMatch(/^\d+ % in pauses$/);
    const rushed = await scoreOf(
      bikeTalk,
      beeClip.map((s) => ({ ...s, seconds: 0.2 * s.text.split(' ').length })),
    );
    expect(rushed.components.pace).toBeLessThan(50);
  });

  it('coherence: one subject beats a mix of two', async () => {
    const one = await scoreOf(bikeTalk, beeClip);
    const mixed = await scoreOf(
      bikeTalk,
      beeClip.map((s, i) => (i % 2 ? { text: sentencesFrom(rng, BIKES, 1)[0]! } : s)),
    );
    expect(mixed.components.coherence).toBeLessThan(one.components.coherence);
  });
});
