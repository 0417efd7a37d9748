import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from '@cutroom/render-agent/understanding/embedder';
import { groundText, groundTitle, indexTranscript, splitSentences, type TranscriptIndex } from '@cutroom/render-agent/understanding/grounding';
import { BAKERY_TALK } from './harness/bakery-talk.ts';

/**
 * Generated text checked against the transcript with the real embedding model (all-MiniLM-L6-v2
 * int8, installed by scripts/ensure-models.sh). The sentences below were written to probe the rule
 * (and several are what Qwen2.5-Coder-1.5B wrote about this talk): honest paraphrase must survive,
 * invented claims, numbers and names must not.
 */
let embedder: Embedder;
let index: TranscriptIndex;

beforeAll(async () => {
  embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
  index = await indexTranscript(splitSentences(BAKERY_TALK), embedder);
});

const SUPPORTED = [
  'The bakery moved its custom cake orders from a paper book to a shared spreadsheet.',
  'In March they raised the prices of tiered cakes, and no customer complained.',
  'Once a month an order went missing, and one time they forgot a wedding cake completely.',
  'A column turns red when a pickup is less than three days away and the order has not been started.',
  'The speaker advises small shop owners to start small and skip expensive software.',
  'In the first six months with the spreadsheet, not a single order was lost.',
  'They were undercharging for tiered cakes by about 20%.',
  "The narrator switched from a paper order book to a simple shared spreadsheet to improve their small bakery's efficiency and reduce order loss.",
];

describe('groundText', () => {
  it('keeps supported paraphrase, each with the passage that supports it', async () => {
    for (const sentence of SUPPORTED) {
      const r = await groundText(sentence, index, embedder);
      expect(r.dropped, sentence).toEqual([]);
      expect(r.kept).toEqual([sentence]);
      expect(r.evidence[0]!.cosine).toBeGreaterThan(0.45);
      expect(r.evidence[0]!.end - r.evidence[0]!.first).toBeLessThanOrEqual(3);
    }
  });

  it('drops invented claims and says why', async () => {
    const cases: [string, RegExp][] = [
      ['The spreadsheet helped the bakery increase sales.', /not supported: .*increas.*sal/],
      ['They found that the spreadsheet allowed them to track orders in real-time, which helped them avoid losing orders and increase sales.', /not supported/],
      ['The bakery has used the spreadsheet since 2015.', /number 2015 is not in the transcript/],
      ['Customers can now order cakes online through the new website.', /not supported: .*onlin/],
      ['The spreadsheet cut their flour costs in half.', /not supported/],
      ['They stopped taking orders by phone.', /not supported/],
      ['Her sister Maria handles all the phone orders.', /name maria is not in the transcript/],
    ];
    for (const [sentence, reason] of cases) {
      const r = await groundText(sentence, index, embedder);
      expect(r.kept, sentence).toEqual([]);
      expect(r.dropped[0]!.reason).toMatch(reason);
      // Judged against the whole talk as well (a summary's sentences are), an invention still fails.
      expect((await groundText(sentence, index, embedder, { wholeSpan: true })).kept, `${sentence} (whole span)`).toEqual([]);
    }
  });

  it('keeps faithful paraphrase and generalisation and refuses invention on the labelled pairs (the calibration of SPAN_COSINE and SPAN_COVERAGE)', async () => {
    const pairs = JSON.parse(readFileSync(new URL('./fixtures/grounding/labelled-pairs.json', import.meta.url), 'utf8')) as {
      premise: string;
      hypothesis: string;
      label: 'paraphrase' | 'generalisation' | 'invention';
    }[];
    const kept = { paraphrase: 0, generalisation: 0, invention: 0 };
    const windowsOnly = { ...kept };
    const of = { ...kept };
    for (const p of pairs) {
      const passage = await indexTranscript(p.premise.split(/(?<=[.?!])\s+/), embedder);
      of[p.label]++;
      if ((await groundText(p.hypothesis, passage, embedder, { wholeSpan: true })).kept.length > 0) kept[p.label]++;
      if ((await groundText(p.hypothesis, passage, embedder)).kept.length > 0) windowsOnly[p.label]++;
    }
    console.info(`labelled pairs kept (whole span): ${JSON.stringify(kept)} of ${JSON.stringify(of)}; windows only: ${JSON.stringify(windowsOnly)}`);
    expect(of).toEqual({ paraphrase: 16, generalisation: 12, invention: 16 });
    expect(kept.invention).toBe(0);
    expect(kept.paraphrase).toBeGreaterThanOrEqual(14);
    expect(kept.generalisation).toBeGreaterThanOrEqual(5);
    expect(kept.generalisation).toBeGreaterThan(windowsOnly.generalisation);
  });

  it('drops a sentence whose number the transcript does not hold, spelled or in digits', async () => {
    for (const [sentence, n] of [
      ['They raised prices by 35 percent in March.', '35'],
      ['The bakery hired five new employees last year.', '5'],
      ['Chocolate orders tripled in December.', '×3'],
    ] as const) {
      const r = await groundText(sentence, index, embedder);
      expect(r.kept, sentence).toEqual([]);
      expect(r.dropped[0]!.reason).toContain(`number ${n}`);
    }
    // The same claims with the transcript's own numbers pass ("twenty percent" ↔ "20%", "doubled").
    expect((await groundText('Chocolate orders doubled in December.', index, embedder)).kept).toHaveLength(1);
  });

  it('checks a paragraph sentence by sentence, keeping the supported ones in order', async () => {
    const summary =
      'The speaker replaced a paper order book with a shared spreadsheet. ' +
      'The change increased sales by 40 percent. ' +
      'After that, no order was lost in the first six months.';
    const r = await groundText(summary, splitSentences(BAKERY_TALK), embedder);
    expect(r.kept).toEqual(['The speaker replaced a paper order book with a shared spreadsheet.', 'After that, no order was lost in the first six months.']);
    expect(r.dropped.map((d) => d.sentence)).toEqual(['The change increased sales by 40 percent.']);
  });
});

describe('groundTitle', () => {
  it('keeps titles drawn from the transcript, in its words or close in meaning', async () => {
    for (const title of [
      'From Paper Order Book to Shared Spreadsheet',
      'The Wedding Cake We Forgot',
      '"Switching to a Shared Spreadsheet for Better Order Management"',
      'How a Spreadsheet Saved Our Bakery Orders',
    ]) {
      expect((await groundTitle(title, index, embedder)).isGrounded, title).toBe(true);
    }
  });

  it('drops titles that claim what the transcript does not', async () => {
    for (const [title, reason] of [
      ['How We Doubled Our Sales in 2015', /number 2015/],
      ['Our Secret Sourdough Recipe', /sourdough/],
      ['Why Online Ordering Boosted Revenue', /onlin/],
    ] as const) {
      const r = await groundTitle(title, index, embedder);
      expect(r.isGrounded, title).toBe(false);
      expect(r.reason).toMatch(reason);
    }
  });
});
