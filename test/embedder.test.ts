import { describe, expect, it } from 'vitest';
import { cosine, DEFAULT_MODELS_DIR, loadLocalEmbedder } from '@cutroom/render-agent/understanding/embedder';

/**
 * The embedded default embedding model, installed by scripts/ensure-models.sh from a package
 * registry and loaded with remote loading off: it must load, and its vectors must carry meaning.
 */
describe('local sentence embeddings (all-MiniLM-L6-v2 int8 through transformers.js)', () => {
  it('loads offline and puts related sentences closer than unrelated ones', async () => {
    const embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
    expect(embedder.dimensions).toBe(384);
    const [cat, kitten, revenue, bees, honey] = await embedder.embed([
      'The cat sat on the warm windowsill all afternoon.',
      'A small kitten was sleeping in the sun by the window.',
      'Quarterly revenue grew by twelve percent over last year.',
      'Bees visit thousands of flowers to collect nectar.',
      'Honey is made by bees from the nectar of flowers.',
    ]);
    for (const v of [cat!, kitten!, revenue!]) expect(Math.abs(cosine(v, v) - 1)).toBeLessThan(1e-3);
    // Reference (sentence-transformers, fp32) puts cat/kitten-style pairs near 0.6 and unrelated pairs near 0.
    expect(cosine(cat!, kitten!)).toBeGreaterThan(0.4);
    expect(cosine(bees!, honey!)).toBeGreaterThan(0.5);
    expect(cosine(cat!, revenue!)).toBeLessThan(0.15);
    expect(cosine(bees!, revenue!)).toBeLessThan(0.15);
    // Alone or in a batch, nearly the same vector (int8 activations are quantized per batch: ~0.99).
    const [again] = await embedder.embed(['A small kitten was sleeping in the sun by the window.']);
    expect(cosine(again!, kitten!)).toBeGreaterThan(0.98);
  });

  it('fails with what to run when the model folder is missing, without reaching for the network', async () => {
    await expect(loadLocalEmbedder({ modelsDir: '/nonexistent/models' })).rejects.toThrow(/could not be loaded from \/nonexistent\/models.*ensure-models\.sh/);
  });
});
