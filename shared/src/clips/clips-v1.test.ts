import { describe, expect, it } from 'vitest';
import { ClipsV1 } from './clips-v1.ts';
import { clipsV1JsonSchema } from './json-schema.ts';

const candidate = {
  id: 'c1',
  rank: 1,
  start: 12.4,
  end: 170.9,
  duration: 158.5,
  first_sentence: 3,
  last_sentence: 41,
  title: 'Honey bees',
  hook: 'Why would anyone keep thirty thousand bees?',
  summary: 'A colony holds one queen. Beekeepers treat for varroa mites in late summer.',
  texts_source: { title: 'extractive', hook: 'extractive', summary: 'extractive' },
  text: 'Why would anyone keep thirty thousand bees? …',
  score: 84,
  score_breakdown: {
    stands_alone: 100,
    hook_strength: 68,
    coherence: 80,
    information_density: 90,
    pace: 100,
    silence: 100,
    weights: { stands_alone: 0.25, hook_strength: 0.2, coherence: 0.2, information_density: 0.15, pace: 0.1, silence: 0.1 },
  },
  reason: 'Strongest: stands alone 100 (opens on its own), pace 100 (151 wpm); weakest: hook 68 (opening has a question).',
  match: null,
};

const doc = {
  version: 1,
  mode: 'best',
  query: null,
  source: { duration: 766.8, language: 'en', sentences: 128 },
  generator: {
    embedder: 'Xenova/all-MiniLM-L6-v2 (q8, transformers.js)',
    text_generator: 'extractive',
    segmentation: { method: 'texttiling over sentence embeddings', window: 4, boundaries: [167, 313.4] },
    timings_ms: { sentences: 1, embeddings: 1200, segmentation: 5, candidates: 20, generation: 15, total: 1241 },
  },
  notes: [],
  candidates: [candidate],
};

describe('clips v1', () => {
  it('accepts a candidates document, and one with no candidates and a note', () => {
    expect(ClipsV1.parse(doc)).toEqual(doc);
    expect(ClipsV1.safeParse({ ...doc, notes: ['the recording is 95 s long: shorter than a 120 s clip; no candidates'], candidates: [] }).success).toBe(true);
  });

  it('refuses candidates outside 120-300 s (a document without a target), fractional or out-of-range scores, and an unknown text source', () => {
    const with_ = (patch: Record<string, unknown>) => ClipsV1.safeParse({ ...doc, candidates: [{ ...candidate, ...patch }] }).success;
    expect(with_({ duration: 119.9 })).toBe(false);
    expect(with_({ duration: 300.1 })).toBe(false);
    expect(with_({ duration: 30 })).toBe(false);
    expect(with_({ score: 84.5 })).toBe(false);
    expect(with_({ score: 101 })).toBe(false);
    expect(with_({ texts_source: { title: 'invented', hook: 'extractive', summary: 'extractive' } })).toBe(false);
    expect(with_({ match: { score: 70, semantic: 0.52, lexical: 0.6, matched_terms: ['honey'], why: 'Matches “honey”' } })).toBe(true);
  });

  it('holds every candidate to the lengths its target names: a short document takes 15-60 s candidates and no others', () => {
    const short = (duration: number) =>
      ClipsV1.safeParse({ ...doc, target: { requested: 'short', min_seconds: 15, max_seconds: 60 }, candidates: [{ ...candidate, duration }] });
    expect(short(15).success).toBe(true);
    expect(short(60).success).toBe(true);
    expect(short(14.9).success).toBe(false);
    const long = short(158.5);
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]).toMatchObject({ path: ['candidates', 0, 'duration'], message: "c1 lasts 158.5 s, outside the target's 15-60 s" });
    // The default's fallback (null: no target asked), and a target the enum does not know.
    expect(
      ClipsV1.safeParse({ ...doc, target: { requested: null, min_seconds: 15, max_seconds: 300 }, candidates: [{ ...candidate, duration: 70 }] }).success,
    ).toBe(true);
    expect(ClipsV1.safeParse({ ...doc, target: { requested: 'huge', min_seconds: 15, max_seconds: 300 } }).success).toBe(false);
  });

  it('generates the public JSON Schema with its $id and the candidate fields required', () => {
    const schema = clipsV1JsonSchema('https://example.test/.well-known/cutroom-clips-v1.schema.json') as {
      $id: string;
      $schema: string;
      required: string[];
      properties: { candidates: { items: { required: string[]; properties: { duration: { minimum: number; maximum: number } } } } };
    };
    expect(schema.$id).toBe('https://example.test/.well-known/cutroom-clips-v1.schema.json');
    expect(schema.$schema).toContain('2020-12');
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'mode', 'query', 'source', 'generator', 'notes', 'candidates']));
    const item = schema.properties.candidates.items;
    expect(item.required).toEqual(
      expect.arrayContaining(['id', 'start', 'end', 'title', 'hook', 'summary', 'text', 'score', 'score_breakdown', 'reason', 'match']),
    );
    expect(item.properties.duration).toMatchObject({ minimum: 15, maximum: 300 });
  });
});
