import { beforeAll, describe, expect, it } from 'vitest';
import { upTo } from './answer-stop.ts';
import { ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { candidateTexts, parseAnswer } from './candidate-texts.ts';
import { DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from './embedder.ts';
import type { CandidateForText } from './find-clips.ts';
import { findClips } from './find-clips.ts';
import { fakeGenerator, INVENTED, THREE_TOPICS } from './summarize-fixtures.ts';
import { timedTranscript } from './test-fixtures.ts';

/** The real all-MiniLM-L6-v2: grounding is calibrated on it (loads in well under a second). */
let embedder: Embedder;
beforeAll(async () => {
  embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
});

const bees = THREE_TOPICS[0]!;
const candidate = (rank: number, query: string | null = null): CandidateForText => ({
  id: `c${rank}`,
  rank,
  start: 0,
  end: 150,
  sentences: [...bees],
  text: bees.join(' '),
  extractive: { title: 'Honey bees', hook: bees[0]!, summary: bees[1]! },
  query,
  unsure: [],
});

describe('candidateTexts', () => {
  it('keeps what the clip supports and drops an invented fact with why', async () => {
    const generator = fakeGenerator({ invent: true });
    const generate = candidateTexts({ generator, embedder, top: 2 })!;
    const texts = await generate(candidate(1));
    expect(texts).toMatchObject({ title: 'Beekeeping is one of the', summary: bees[1] });
    // The hook stays the clip's own sentence (extractive).
    expect(texts!.hook).toBeUndefined();
    expect(texts!.dropped).toEqual([{ field: 'summary', text: INVENTED, reason: expect.stringMatching(/number 1987, 4000 is not in the transcript/) }]);
    // A short request: the key sentences, not the clip's whole text; two labelled lines asked for.
    const req = generator.requests[0]!;
    expect(req.responsePrefix).toBe('Title:');
    // The answer ends after the one summary sentence asked for.
    expect(upTo('Title: X\nSummary: One fact. Two.', req.stopAfter)).toBe('Title: X\nSummary: One fact.');
    expect(req.maxTokens).toBeLessThanOrEqual(100);
    expect(req.prompt).toContain(`${bees[0]} ${bees[1]}`);
    expect(req.prompt).not.toContain(bees[9]);
  });

  it('asks about the query in query mode, and only for the best `top` candidates', async () => {
    const generator = fakeGenerator();
    const generate = candidateTexts({ generator, embedder, top: 1 })!;
    await generate(candidate(1, 'varroa mites'));
    expect(generator.requests[0]!.prompt).toContain('matches the search "varroa mites"');
    expect(await generate(candidate(2))).toEqual({
      notes: [expect.stringMatching(/best 1 candidates are from the text model; hooks and the others' texts are extractive/)],
    });
    expect(await generate(candidate(3))).toBeNull();
    expect(generator.requests).toHaveLength(1);
    expect(candidateTexts({ generator, embedder, top: 0 })).toBeNull();
  });

  it('turns a failed request into extractive texts and a note, but an abort into an abort', async () => {
    const errors: string[] = [];
    const failing = candidateTexts({ generator: fakeGenerator({ failOn: /clip/ }), embedder, top: 3, onError: (c) => errors.push(c.id) })!;
    expect(await failing(candidate(1))).toEqual({ notes: ['the text model failed on c1: its title and summary are extractive'] });
    expect(errors).toEqual(['c1']);

    const ac = new AbortController();
    const slow = candidateTexts({ generator: fakeGenerator({ delayMs: 5000 }), embedder, top: 3, signal: ac.signal })!;
    setTimeout(() => ac.abort(new Error('attempt cancelled')), 30);
    await expect(slow(candidate(1))).rejects.toThrow('attempt cancelled');
  });

  it('refuses a title that names what the clip does not say', async () => {
    const liar = { ...fakeGenerator(), complete: async () => `Title: Why Tesla Bought A Bee Farm\nSummary: ${bees[2]}` };
    const texts = await candidateTexts({ generator: liar, embedder, top: 1 })!(candidate(1));
    expect(texts!.title).toBeUndefined();
    expect(texts!.dropped).toEqual([{ field: 'title', text: 'Why Tesla Bought A Bee Farm', reason: expect.stringMatching(/not in the transcript: .*tesla/) }]);
    expect(texts!.summary).toBe(bees[2]);
  });

  it('drops a title that repeats a word the recognizer was unsure of (its extractive text stays), and tells the model the words', async () => {
    const generator = fakeGenerator();
    const generate = candidateTexts({ generator, embedder, top: 1 })!;
    // The control: the same candidate with every word sure keeps the model's title.
    const sure = await generate(candidate(1));
    expect(sure).toMatchObject({ title: 'Beekeeping is one of the' });
    const unsure = await candidateTexts({ generator, embedder, top: 1 })!({ ...candidate(1), unsure: [{ word: 'beekeeping', probability: 0.21 }] });
    expect(generator.requests[1]!.prompt).toContain('may be misheard; do not use them: beekeeping');
    expect(unsure!.title).toBeUndefined();
    expect(unsure!.summary).toBe(sure!.summary);
    const reason = 'repeats a word the recognizer was unsure of: “beekeeping” (0.21), below 0.5';
    expect(unsure!.dropped).toEqual([{ field: 'title', text: 'Beekeeping is one of the', reason }]);
  });

  it('reads the two labelled lines, with markdown and quotes', () => {
    expect(parseAnswer('Title: "Honey bees at work"\n**Summary:** Workers fan the nectar.')).toEqual({
      title: 'Honey bees at work',
      summary: 'Workers fan the nectar.',
    });
    expect(parseAnswer('no labels at all')).toEqual({ title: '', summary: '' });
  });
});

describe('findClips with model texts', () => {
  it('marks generated fields, keeps extractive ones past `top`, and records what grounding dropped', async () => {
    // Three topics, each stretched to ~130 s so every one can be a candidate.
    const t = timedTranscript(THREE_TOPICS.flat().map((text) => ({ text, seconds: 12.5, pauseAfter: 0.5 })));
    const generator = fakeGenerator({ invent: true });
    const doc = await findClips({
      transcript: t,
      embedder,
      generate: candidateTexts({ generator, embedder, top: 1 })!,
      generatorId: generator.id,
    });
    expect(ClipsV1.safeParse(doc).success).toBe(true);
    expect(doc.candidates.length).toBeGreaterThanOrEqual(2);
    const [best, ...rest] = doc.candidates;
    expect(best!.texts_source).toEqual({ title: 'generated', hook: 'extractive', summary: 'generated' });
    expect(best!.summary).not.toContain('Hartmann');
    for (const c of rest) expect(c.texts_source).toEqual({ title: 'extractive', hook: 'extractive', summary: 'extractive' });
    expect(doc.generator.text_generator).toBe('fake-model (test)');
    expect(doc.generator.dropped).toEqual([{ candidate: 'c1', field: 'summary', text: INVENTED, reason: expect.stringMatching(/1987/) }]);
    expect(doc.notes).toContain("titles and summaries of the best 1 candidates are from the text model; hooks and the others' texts are extractive");
    expect(generator.requests).toHaveLength(1);
  });
});
