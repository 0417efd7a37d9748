import { beforeAll, describe, expect, it } from 'vitest';
import { SummaryV1 } from '@cutroom/shared/summary/summary-v1';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from './embedder.ts';
import { type FakeGenerator, fakeGenerator, INVENTED, THREE_TOPICS } from './summarize-fixtures.ts';
import {
  composeOverview,
  MAX_CHAPTERS,
  MIN_CHAPTER_SECONDS,
  mergeChapters,
  OVERVIEW_MAX_SENTENCES,
  overviewLeads,
  summarize,
  timeSlices,
} from './summarize.ts';
import { KEY_CHARS } from './prompt-budget.ts';
import { BATCH_CHAPTERS, batches, batchPrompt, keySentences, parseBatch } from './summary-texts.ts';
import { bagOfWordsEmbedder, timedTranscript } from './test-fixtures.ts';
import { splitSentences } from './grounding.ts';
import { upTo } from './answer-stop.ts';

/** The three-topic talk, about 6 s a sentence: three topics of about a minute each. */
const talk: TranscriptV2 = timedTranscript(THREE_TOPICS.flat().map((text) => ({ text, seconds: 6, pauseAfter: 0.4 })));
const sentences = sentencesOf(talk);

/** The real all-MiniLM-L6-v2 (installed by scripts/ensure-models.sh; loads in well under a second): grounding is calibrated on it. */
let embedder: Embedder;
beforeAll(async () => {
  embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
});

/** Every text is extractive (verbatim transcript sentences) or generated and grounded; every key point's evidence lies in the transcript. */
function expectSound(doc: SummaryV1) {
  expect(SummaryV1.safeParse(doc).success).toBe(true);
  const all = sentences.map((s) => s.text);
  for (const k of doc.key_points) {
    if (k.source === 'extractive') expect(all).toContain(k.text);
    expect(k.evidence.last_sentence).toBeLessThan(sentences.length);
    expect(k.evidence.start).toBe(sentences[k.evidence.first_sentence]!.start);
    expect(k.evidence.end).toBe(sentences[k.evidence.last_sentence]!.end);
  }
  expect(doc.key_points.map((k) => k.evidence.start)).toEqual([...doc.key_points.map((k) => k.evidence.start)].sort((a, b) => a - b));
  // Chapters cover the recording in order.
  expect(doc.chapters[0]!.start).toBe(0);
  doc.chapters.forEach((c, i) => {
    expect(c.index).toBe(i + 1);
    if (i > 0) expect(c.start).toBe(doc.chapters[i - 1]!.end);
    if (c.summary_source === 'extractive') for (const part of c.summary.match(/[^.?!]+[.?!]/g)!) expect(all.join(' ')).toContain(part.trim());
  });
  expect(doc.chapters.at(-1)!.end).toBe(talk.duration);
}

describe('summarize with a text model (a deterministic fake) and the real embedder', () => {
  it('writes each chapter in a short request from its key sentences and composes the overview from them; an invented fact is dropped everywhere, with why', async () => {
    const generator = fakeGenerator({ invent: true });
    const progress: number[] = [];
    const doc = await summarize({ transcript: talk, embedder, generator, onProgress: (f) => progress.push(f) });
    // Never a kept text, always recorded as dropped.
    const keptTexts = [doc.overview, ...doc.key_points.map((k) => k.text), ...doc.chapters.flatMap((c) => [c.title, c.summary])].join(' ');
    expect(keptTexts).not.toContain('Hartmann');
    expect(keptTexts).not.toContain('1987');
    const droppedInvented = doc.generator.dropped.filter((d) => d.text === INVENTED);
    expect(droppedInvented.length).toBeGreaterThanOrEqual(doc.chapters.length); // every chapter summary
    for (const d of droppedInvented) expect(d.reason).toMatch(/number 1987, 4000 is not in the transcript|name hartmann/);

    expect(doc.chapters).toHaveLength(3);
    // The chapters follow the topics: each starts at the first sentence of one.
    expect(doc.chapters.map((c) => c.first_sentence)).toEqual([0, 10, 20]);
    for (const c of doc.chapters) expect([c.title_source, c.summary_source]).toEqual(['generated', 'generated']);
    expect(doc.overview_source).toBe('generated');
    // The overview: each chapter's lead sentence, in order (every part reaches it).
    expect(doc.overview).toBe(doc.chapters.map((c) => c.summary).join(' '));
    // One generated key point a chapter: its kept summary sentence, with the window that holds it as evidence.
    const generated = doc.key_points.filter((k) => k.source === 'generated');
    expect(generated).toHaveLength(3);
    for (const [i, k] of generated.entries()) {
      expect(k.text).toBe(doc.chapters[i]!.summary);
      const inEvidence = sentences.slice(k.evidence.first_sentence, k.evidence.last_sentence + 1).map((s) => s.text);
      expect(inEvidence).toContain(k.text);
    }
    expect(doc.generator.text_generator).toBe('fake-model (test)');
    expect(doc.generator.parts).toBe(3);
    // A request a chapter holding its key sentences (not its whole text), and none for the overview.
    expect(generator.requests).toHaveLength(3);
    for (const [i, r] of generator.requests.entries()) {
      expect(r.prompt.split('\n').filter((l) => /^Part \d: /.test(l))).toEqual([expect.stringMatching(new RegExp(`^Part ${i + 1}: `))]);
      expect(r.prompt.length).toBeLessThan(KEY_CHARS + 600);
      expect(r.responsePrefix).toBe(`Title ${i + 1}:`);
      // The answer ends after the chapter's one summary sentence.
      expect(upTo(`Title ${i + 1}: X\nSummary ${i + 1}: One fact. Two.`, r.stopAfter)).toBe(`Title ${i + 1}: X\nSummary ${i + 1}: One fact.`);
      const own = sentences.slice(doc.chapters[i]!.first_sentence, doc.chapters[i]!.last_sentence + 1);
      expect(own.filter((s) => r.prompt.includes(s.text)).length).toBeLessThan(own.length);
      expect(sentences.filter((s) => r.prompt.includes(s.text)).every((s) => own.includes(s))).toBe(true);
    }
    expect(progress.at(-1)).toBe(1);
    expectSound(doc);
  });

  it('keeps extractive texts where a request fails, and says so', async () => {
    const failing = fakeGenerator({ failOn: /Part 2:/ });
    const errors: string[] = [];
    const doc = await summarize({ transcript: talk, embedder, generator: failing, onError: (what) => errors.push(what) });
    expect(errors).toEqual(['chapter 2']);
    expect(doc.chapters.map((c) => c.title_source)).toEqual(['generated', 'extractive', 'generated']);
    expect(doc.overview_source).toBe('generated');
    expect(doc.notes).toContain('the text model failed on chapter 2: its text is extractive');
    expectSound(doc);

    const none = fakeGenerator();
    const zero = await summarize({ transcript: talk, embedder, generator: none, maxCalls: 0 });
    expect(none.requests).toHaveLength(0);
    expect(zero.generator.text_generator).toBe('extractive');
  });

  it('writes the chapters within the request budget', async () => {
    const capped = fakeGenerator();
    const two = await summarize({ transcript: talk, embedder, generator: capped, maxCalls: 2 });
    expect(capped.requests).toHaveLength(2);
    expect(two.chapters.map((c) => c.summary_source)).toEqual(['generated', 'generated', 'extractive']);
    // Two generated leads and one transcript sentence.
    expect(two.overview_source).toBe('generated');
    expect(two.notes.join(' ')).toContain('chapter 3 keeps extractive titles and summaries: the text-model request budget (2) was spent');

    // One chapter: one request, and the overview is the chapter's summary.
    const one = fakeGenerator();
    const bees = timedTranscript(THREE_TOPICS[0]!.map((text) => ({ text, seconds: 6, pauseAfter: 0.4 })));
    const single = await summarize({ transcript: bees, embedder, generator: one });
    expect(one.requests).toHaveLength(1);
    expect(one.requests[0]!.prompt).toMatch(/^Key sentences of a spoken recording:\n/);
    expect(one.requests[0]!.prompt).not.toMatch(/overview/i);
    expect([single.chapters[0]!.summary_source, single.overview_source]).toEqual(['generated', 'generated']);
    // Its summary first, then central sentences of the recording, verbatim, up to three.
    expect(single.overview.startsWith(single.chapters[0]!.summary)).toBe(true);
    const more = splitSentences(single.overview.slice(single.chapters[0]!.summary.length));
    expect(more.length).toBe(3 - splitSentences(single.chapters[0]!.summary).length);
    for (const m of more) expect(THREE_TOPICS[0]).toContain(m);
  });

  it('drops a chapter sentence that the chapter says but that is off its subject, and gives every chapter a key point', async () => {
    // One bicycle sentence inside the bee topic: too short to be a chapter of its own.
    const [bees, bikes, bread] = THREE_TOPICS as [string[], string[], string[]];
    const stray = bikes[0]!;
    const mixed = timedTranscript(
      [...bees.slice(0, 5), stray, ...bees.slice(5), ...bikes.slice(1), ...bread].map((text) => ({ text, seconds: 6, pauseAfter: 0.4 })),
    );
    const writer: FakeGenerator = {
      ...fakeGenerator(),
      // Chapter 1: the stray sentence and a bee sentence; the others nothing.
      complete: async (req) => (req.prompt.includes('Part 1:') ? `Title 1:\nSummary 1: ${stray} ${bees[1]}` : 'Title:'),
    };
    const doc = await summarize({ transcript: mixed, embedder, generator: writer });
    expect(doc.chapters[0]!.summary).toBe(bees[1]);
    expect(doc.generator.dropped).toContainEqual({
      text: stray,
      reason: expect.stringMatching(/chapter 1 summary: off the chapter's subject \(cosine 0\.\d+ to its centroid < 0\.35\)/),
    });
    // Chapter 1's point is generated; chapters 2 and 3 each get their key sentence.
    expect(doc.key_points[0]).toMatchObject({ source: 'generated', text: bees[1] });
    for (const ch of doc.chapters.slice(1)) {
      expect(
        doc.key_points.some((k) => k.source === 'extractive' && k.evidence.first_sentence >= ch.first_sentence && k.evidence.last_sentence <= ch.last_sentence),
      ).toBe(true);
    }
  });

  it('drops a chapter title that repeats a word the recognizer was unsure of, and tells the model the words', async () => {
    // Every word of the first topic heard below 0.5: any title of chapter 1 repeats one.
    const unsure: TranscriptV2 = {
      ...talk,
      segments: talk.segments.map((s, i) => (i < 10 ? { ...s, words: s.words.map((w) => ({ ...w, probability: 0.2 })) } : s)),
    };
    const generator = fakeGenerator();
    const doc = await summarize({ transcript: unsure, embedder, generator });
    expect(doc.chapters.map((c) => c.title_source)).toEqual(['extractive', 'generated', 'generated']);
    expect(doc.generator.dropped).toContainEqual({
      text: expect.any(String),
      reason: expect.stringMatching(/^chapter 1 title: repeats a word the recognizer was unsure of/),
    });
    expect(generator.requests[0]!.prompt).toMatch(/may be misheard; do not use them in a title: .*beekeeping/);
    expect(generator.requests[1]!.prompt).not.toContain('misheard');
  });

  it('stops on an abort instead of falling back', async () => {
    const slow = fakeGenerator({ delayMs: 5000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('attempt cancelled')), 50);
    await expect(summarize({ transcript: talk, embedder, generator: slow, signal: ac.signal })).rejects.toThrow('attempt cancelled');
    expect(slow.requests).toHaveLength(1);
  });
});

describe('summarize without a text model', () => {
  it('is extractive and never empty: central sentences of the chapters, verbatim, in time order', async () => {
    const doc = await summarize({ transcript: talk, embedder });
    expect(doc.generator.text_generator).toBe('extractive');
    expect(doc.overview_source).toBe('extractive');
    expect(doc.overview.length).toBeGreaterThan(40);
    expect(doc.key_points.length).toBeGreaterThanOrEqual(3);
    expect(doc.key_points.length).toBeLessThanOrEqual(8);
    for (const k of doc.key_points) {
      expect(k.source).toBe('extractive');
      expect(k.evidence.first_sentence).toBe(k.evidence.last_sentence);
      expect(k.text).toBe(sentences[k.evidence.first_sentence]!.text);
    }
    // One key point at least from every topic (the floor picks by parts).
    expect(new Set(doc.key_points.map((k) => Math.floor(k.evidence.first_sentence / 10)))).toEqual(new Set([0, 1, 2]));
    expect(doc.generator.dropped).toEqual([]);
    expectSound(doc);
  });

  it('answers a recording without speech with an empty summary and a note', async () => {
    const silent: TranscriptV2 = { version: 2, language: 'en', duration: 42, segments: [] };
    const doc = await summarize({ transcript: silent, embedder: bagOfWordsEmbedder(), generator: fakeGenerator() });
    expect(doc).toMatchObject({ overview: '', key_points: [], chapters: [], notes: [expect.stringMatching(/no speech/)] });
    expect(SummaryV1.safeParse(doc).success).toBe(true);
  });

  it('summarizes a recording of two sentences with what it has', async () => {
    const short = timedTranscript([{ text: 'We meet at the station at nine in the morning.' }, { text: 'Please bring walking shoes and a rain jacket.' }]);
    const doc = await summarize({ transcript: short, embedder });
    expect(doc.chapters).toHaveLength(1);
    expect(doc.key_points.length).toBeGreaterThanOrEqual(1);
    expect(doc.key_points.length).toBeLessThanOrEqual(2);
    expect(doc.overview).not.toBe('');
  });
});

describe('mergeChapters', () => {
  const times = Array.from({ length: 400 }, (_, i) => ({ start: i * 5, end: i * 5 + 4.5 }));
  const embeddings = Array.from({ length: 400 }, (_, i) => Float32Array.from([Math.cos(i / 40), Math.sin(i / 40)]));
  it('joins chapters shorter than the minimum to a neighbour and caps their number', () => {
    // Spans of 4 sentences (~20 s) between long ones: each short one is absorbed.
    const spans = [
      { first: 0, last: 19 },
      { first: 20, last: 23 },
      { first: 24, last: 59 },
    ];
    const merged = mergeChapters(spans, times, embeddings);
    expect(merged).toHaveLength(2);
    expect(merged[0]!.first).toBe(0);
    expect(merged.at(-1)!.last).toBe(59);
    for (const s of merged) expect(times[s.last]!.end - times[s.first]!.start).toBeGreaterThanOrEqual(MIN_CHAPTER_SECONDS);

    const many = Array.from({ length: 40 }, (_, k) => ({ first: k * 10, last: k * 10 + 9 }));
    const capped = mergeChapters(many, times, embeddings);
    expect(capped).toHaveLength(MAX_CHAPTERS);
    // Still contiguous and complete.
    for (const [i, s] of capped.entries()) expect(s.first).toBe(i === 0 ? 0 : capped[i - 1]!.last + 1);
    expect(capped.at(-1)!.last).toBe(399);
  });
});

describe('summary requests', () => {
  it('balances batches of chapters and shows each chapter by key sentences within its share', () => {
    expect(batches([1, 2, 3, 4, 5, 6, 7], 6).map((b) => b.length)).toEqual([4, 3]);
    expect(batches([1, 2, 3], 6).map((b) => b.length)).toEqual([3]);
    expect(batches([1, 2, 3]).map((b) => b.length)).toEqual(Array(3).fill(BATCH_CHAPTERS));
    const key = keySentences(
      sentences,
      sentences.map(() => Float32Array.from([1, 0])),
      { first: 0, last: 9 },
    );
    expect(key.join(' ').length).toBeLessThanOrEqual(KEY_CHARS);
    expect(key.length).toBeGreaterThan(1);
    const prompt = batchPrompt([{ index: 1, key }], { total: 1 });
    expect(prompt).toContain(`Part 1: ${key.join(' ')}`);
    expect(prompt.trim().split('\n').slice(-2)).toEqual(['Title 1:', 'Summary 1:']);
    expect(batchPrompt([{ index: 2, key }], { total: 3 })).toMatch(/^Key sentences of part 2 of a spoken recording of 3 parts:/);
  });

  it('reads labelled lines, with markdown and quotes; what is missing is empty, unasked lines are ignored', () => {
    const answer = 'Title 4: "Bees in spring"\n**Summary 4:** The queen lays eggs.\nTitle 5: Bikes\nOverview: Bees work.\nBikes roll.';
    expect(parseBatch(answer, [4, 5])).toEqual({
      parts: [
        { title: 'Bees in spring', summary: 'The queen lays eggs.' },
        { title: 'Bikes', summary: '' },
      ],
    });
    expect(parseBatch('nothing useful', [1])).toEqual({ parts: [{ title: '', summary: '' }] });
  });

  it('slices a recording by time into spans of about equal duration', () => {
    const times = [0, 10, 20, 30, 40, 50, 60, 70, 80].map((t) => ({ start: t, end: t + 9 }));
    expect(timeSlices(times, 3)).toEqual([
      { first: 0, last: 2 },
      { first: 3, last: 5 },
      { first: 6, last: 8 },
    ]);
    expect(timeSlices(times.slice(0, 2), 3)).toEqual([
      { first: 0, last: 0 },
      { first: 1, last: 1 },
    ]);
    expect(timeSlices([], 3)).toEqual([]);
  });

  it('composes the overview from chapter leads: every chapter in time order, the longest when there are more, generated if any lead is', () => {
    const ch = (start: number, end: number, summary: string, source: 'generated' | 'extractive' = 'extractive') => ({
      start,
      end,
      summary,
      summary_source: source,
    });
    const compose = (chapters: ReturnType<typeof ch>[], fill: { text: string; start: number }[] = []) =>
      composeOverview(
        overviewLeads(chapters),
        fill.map((f) => ({ ...f, source: 'extractive' as const })),
      );
    // Three chapters: their leads, nothing else.
    expect(compose([ch(0, 60, 'Bees swarm in May. They rest on a branch.', 'generated'), ch(60, 90, 'Bikes roll. Fast.'), ch(90, 99, 'Bread rises.')])).toEqual(
      {
        text: 'Bees swarm in May. Bikes roll. Bread rises.',
        source: 'generated',
      },
    );
    // Seven chapters: the five longest, still in time order.
    const seven = [10, 50, 40, 5, 30, 20, 60].map((len, i) => ch(i * 100, i * 100 + len, `Part ${i + 1} lead.`));
    expect(compose(seven).text).toBe('Part 2 lead. Part 3 lead. Part 5 lead. Part 6 lead. Part 7 lead.');
    expect(compose(seven).text.split('. ')).toHaveLength(OVERVIEW_MAX_SENTENCES);
    // One chapter: its summary, then central sentences up to three, in time order, each once.
    const one = [ch(0, 100, 'The marathon went to Anna.', 'generated')];
    expect(
      compose(one, [
        { text: 'A storm closed the bridge.', start: 40 },
        { text: 'United won 3-1.', start: 70 },
        { text: 'Extra.', start: 80 },
      ]),
    ).toEqual({
      text: 'The marathon went to Anna. A storm closed the bridge. United won 3-1.',
      source: 'generated',
    });
    expect(compose(one, [{ text: 'Early words.', start: 0 }]).text).toBe('The marathon went to Anna. Early words.');
    expect(compose([ch(0, 10, 'Same.'), ch(10, 20, 'Same.')], [{ text: 'Same.', start: 3 }]).text).toBe('Same.');
    expect(compose([ch(0, 10, 'Only transcript words.')], []).source).toBe('extractive');
  });
});
