import { cosine } from './embedder.ts';

/** The L2-normalized mean of `vectors[from..to)` (the centroid direction); zeros when the range is empty. */
export function meanDirection(vectors: readonly Float32Array[], from = 0, to = vectors.length): Float32Array {
  const dims = vectors[0]?.length ?? 0;
  const mean = new Float32Array(dims);
  for (let i = Math.max(0, from); i < Math.min(to, vectors.length); i++) {
    const v = vectors[i]!;
    for (let d = 0; d < dims; d++) mean[d]! += v[d]!;
  }
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += mean[d]! * mean[d]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < dims; d++) mean[d]! /= norm;
  return mean;
}

/** Cosine similarity of each of `vectors[from..to)` to `direction`. */
export function similaritiesTo(direction: Float32Array, vectors: readonly Float32Array[], from = 0, to = vectors.length): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(cosine(vectors[i]!, direction));
  return out;
}

export const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function standardDeviation(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
}

/** `x` mapped linearly from [lo, hi] onto [0, 1], clamped. */
export const ramp = (x: number, lo: number, hi: number): number => Math.min(1, Math.max(0, (x - lo) / (hi - lo)));
