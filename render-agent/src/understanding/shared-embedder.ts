import fs from 'node:fs';
import path from 'node:path';
import type { Requirement } from '../capabilities/requirements.ts';
import { DEFAULT_EMBEDDING_MODEL, DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from './embedder.ts';

/** The files transformers.js reads for the default model (what scripts/ensure-models.sh installs). */
const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

const modelDir = path.join(DEFAULT_MODELS_DIR, DEFAULT_EMBEDDING_MODEL);

/** Start-up probe: are the default model's files where the agent loads them from? */
export const detectEmbeddingModel = (): boolean => MODEL_FILES.every((f) => fs.existsSync(path.join(modelDir, f)));

/** The embedding model is installed (HostFacts.embeddingModel, from the start-up probe). */
export const embeddingModelAvailable: Requirement = (host) =>
  host.embeddingModel ? null : `the sentence-embedding model is not installed in ${modelDir}: run scripts/ensure-models.sh`;

let loading: Promise<Embedder> | null = null;

/** One embedder per agent process, loaded on first use (about 0.2-0.6 s) and kept. A failed load is retried next time. */
export function sharedEmbedder(): Promise<Embedder> {
  loading ??= loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR }).catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}
