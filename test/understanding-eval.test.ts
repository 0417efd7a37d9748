import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LLM_MODEL_PATH } from '@cutroom/render-agent/config';
import { sharedEmbedder } from '@cutroom/render-agent/understanding/shared-embedder';
import type { Embedder } from '@cutroom/render-agent/understanding/embedder';
import { evaluateTalk, openModel, type PreparedTalk, prepareTalk } from '../scripts/eval/run-understanding.ts';
import { UNDERSTANDING_SET } from '../scripts/eval/understanding-set.ts';

/**
 * The short slice of `npm run eval:understanding` that runs in `npm test`: the three-topic talk
 * (tomatoes, coffee, heat pumps, ~65 s each, three voices, names and numbers; a talk the prompts
 * were not tuned on) through summarize and find_clips with the default local model, scored by the
 * evaluation's own rules
 * (scripts/eval/understanding-score.ts: hand-written claims, never the production judge). The
 * bars are below what the full evaluation measured (docs/benchmarks.md), so a regression in the
 * prompts, the grounding or the clip spans fails here, not in a user's hands.
 */
let talk: PreparedTalk;
let embedder: Embedder;

beforeAll(async () => {
  talk = await prepareTalk(UNDERSTANDING_SET.find((t) => t.name === 'three-topics')!);
  embedder = await sharedEmbedder();
}, 240_000);

describe('understanding evaluation, short slice', () => {
  it('summarizes and finds clips faithfully on a talk of three topics', async () => {
    expect(existsSync(DEFAULT_LLM_MODEL_PATH), 'the set-up installs the local text model').toBe(true);
    // One thread: another test file shares the two cores, and llama.cpp's threads spin-wait on each
    // other when a core is taken (this file took 113 s with two threads in a full run).
    const generator = await openModel(DEFAULT_LLM_MODEL_PATH, 1);
    const r = await evaluateTalk(talk, embedder, generator);
    const s = r.summary;
    console.info(
      `eval slice: topics ${s.topicCoverage}, claims ${s.claimCoverage.toFixed(2)}, summary sentences ${s.generated.length} (${s.generated.filter((v) => !v.isFaithful).length} unfaithful), ` +
        `analysis ${s.seconds.toFixed(1)} s; clips ${r.clips!.candidates} (${r.clips!.crossing} crossing), clip texts ${r.clips!.generated.length}; overview: ${s.doc.overview}`,
    );
    // The model wrote something the check kept, and what it kept is faithful to the talk.
    expect(s.doc.generator.text_generator).toMatch(/^local:/);
    expect(s.generated.length).toBeGreaterThan(0);
    expect(s.generated.filter((v) => v.isFaithful).length / s.generated.length).toBeGreaterThanOrEqual(0.75);
    expect(s.orphaned).toEqual([]);
    expect(s.topicCoverage).toBe(1);
    expect(s.boundaries).toMatchObject({ found: 2, of: 2, spurious: 0 });
    // Clips: none across a true topic boundary, no orphaned or unsure-worded title or hook, generated texts faithful.
    const c = r.clips!;
    expect(c.candidates).toBe(3);
    expect(c.crossing).toBe(0);
    expect(c.orphaned).toEqual([]);
    expect(
      c.generated.every((v) => v.isFaithful),
      JSON.stringify(c.generated),
    ).toBe(true);
  }, 300_000);
});
