import path from 'node:path';

/**
 * Sentence embeddings behind one small interface, so a GPU host or a larger model can replace the
 * embedded default without touching what uses it (topic segmentation, query matching, key
 * sentences). Vectors are L2-normalized: the dot product is the cosine similarity.
 */
export interface Embedder {
  /** What produced the vectors (recorded with results). */
  readonly id: string;
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface LocalEmbedderOptions {
  /** Folder holding `<modelId>/config.json, tokenizer*.json, onnx/…` (scripts/ensure-models.sh). */
  modelsDir: string;
  /** @default Xenova/all-MiniLM-L6-v2 */
  modelId?: string;
  /** ONNX weights to load: `q8` = onnx/model_quantized.onnx, `fp32` = onnx/model.onnx. @default q8 */
  dtype?: 'q8' | 'fp32';
  /** Texts per forward pass (bounds memory on long transcripts). @default 32 */
  batchSize?: number;
}

export const DEFAULT_EMBEDDING_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Where the set-up installs models: `<repo>/.tools/models`. */
export const DEFAULT_MODELS_DIR = path.resolve(import.meta.dirname, '../../../.tools/models');

/**
 * A transformers.js feature-extraction pipeline over local files only: remote loading is switched
 * off before the model is opened, so a missing file fails at once instead of reaching for the
 * network. Mean pooling + normalization, as sentence-transformers does for this model family.
 */
export async function loadLocalEmbedder(o: LocalEmbedderOptions): Promise<Embedder> {
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = o.modelsDir.endsWith(path.sep) ? o.modelsDir : `${o.modelsDir}${path.sep}`;
  const modelId = o.modelId ?? DEFAULT_EMBEDDING_MODEL;
  const dtype = o.dtype ?? 'q8';
  const batchSize = o.batchSize ?? 32;
  let extractor: Awaited<ReturnType<typeof pipeline<'feature-extraction'>>>;
  try {
    extractor = await pipeline('feature-extraction', modelId, { dtype, device: 'cpu' });
  } catch (err) {
    throw new Error(
      `the embedding model ${modelId} (${dtype}) could not be loaded from ${o.modelsDir}: ${(err as Error).message}; run scripts/ensure-models.sh`,
      { cause: err },
    );
  }
  let dimensions = 0;
  const embed = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize);
      const tensor = await extractor([...batch], { pooling: 'mean', normalize: true });
      const [rows, dims] = tensor.dims as [number, number];
      const data = tensor.data as Float32Array;
      for (let r = 0; r < rows; r++) out.push(data.slice(r * dims, (r + 1) * dims));
      dimensions = dims;
      tensor.dispose();
    }
    return out;
  };
  // One pass to learn the width (and warm the session) before anyone asks.
  await embed(['warm-up']);
  return { id: `${modelId} (${dtype}, transformers.js)`, dimensions, embed };
}

/** Cosine similarity of two normalized vectors (their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
