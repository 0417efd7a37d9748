import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from './embedder.ts';
import { indexTranscript, type TranscriptIndex } from './grounding.ts';
import { groundList, listItems } from './list-grounding.ts';
import { THREE_TOPICS } from './summarize-fixtures.ts';

let embedder: Embedder;
let index: TranscriptIndex;
beforeAll(async () => {
  embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
  index = await indexTranscript(THREE_TOPICS.flat(), embedder);
});

describe('list sentences', () => {
  it('reads a list of topics, framing words off', () => {
    expect(listItems('The recording covers beekeeping, the history of the bicycle, and sourdough bread.')).toEqual([
      'beekeeping',
      'history bicycle',
      'sourdough bread',
    ]);
    expect(listItems('Bees make honey and wax.')).toBeNull();
  });

  it('keeps a list whose every item the transcript holds, and drops one with an invented item, naming it', async () => {
    expect(await groundList('The recording covers honey bees, the safety bicycle, and sourdough bread.', index, embedder)).toMatchObject({ isGrounded: true });
    const invented = await groundList('It discusses honey bees, the safety bicycle, and the Tesla factory in Berlin.', index, embedder);
    expect(invented.isGrounded).toBe(false);
    expect(invented.reason).toMatch(/the item "Tesla factory in Berlin": not in the transcript/);
    const number = await groundList('It covers 40 bee colonies, the safety bicycle, and sourdough bread.', index, embedder);
    expect(number).toMatchObject({ isGrounded: false, reason: expect.stringMatching(/number 40/) });
  });
});
