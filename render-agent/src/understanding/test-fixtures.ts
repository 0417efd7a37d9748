import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { Embedder } from './embedder.ts';

/**
 * Test helpers for the understanding modules: a seeded random source, synthetic timed
 * transcripts, and a deterministic bag-of-words embedder (sentences sharing words point the same
 * way), so the pure parts are tested without a model.
 */

/** mulberry32: a small seeded generator, [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TimedSentence {
  text: string;
  /** Seconds the sentence takes; its words share it evenly. @default 0.4 s per word */
  seconds?: number;
  /** Silence after it, seconds. @default 0.3 */
  pauseAfter?: number;
}

/** A v2 transcript of the given sentences, one segment each, words evenly timed. */
export function timedTranscript(sentences: readonly TimedSentence[], language = 'en'): TranscriptV2 {
  let t = 0;
  const segments = sentences.map((s, id) => {
    const tokens = s.text.split(/\s+/).filter(Boolean);
    const seconds = s.seconds ?? 0.4 * tokens.length;
    const per = seconds / tokens.length;
    const start = t;
    const words = tokens.map((word, i) => ({ start: start + i * per, end: start + (i + 0.85) * per, word, probability: 0.9 }));
    t = start + seconds + (s.pauseAfter ?? 0.3);
    return { id, start, end: start + seconds, text: s.text, words };
  });
  return { version: 2, language, duration: t, segments };
}

/** `count` sentences of 8-16 words drawn from `vocabulary`, each ending with a period. */
export function sentencesFrom(rng: () => number, vocabulary: readonly string[], count: number): string[] {
  return Array.from({ length: count }, () => {
    const n = 8 + Math.floor(rng() * 9);
    const words = Array.from({ length: n }, () => vocabulary[Math.floor(rng() * vocabulary.length)]!);
    words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
    return `${words.join(' ')}.`;
  });
}

/** A pseudo-random unit vector per word (hashed), summed per text and normalized. */
export function bagOfWordsEmbedder(dimensions = 96): Embedder {
  const cache = new Map<string, Float32Array>();
  const wordVector = (w: string) => {
    let v = cache.get(w);
    if (!v) {
      let h = 2166136261;
      for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
      const rng = seededRandom(h);
      v = Float32Array.from({ length: dimensions }, () => rng() * 2 - 1);
      cache.set(w, v);
    }
    return v;
  };
  const embedOne = (text: string) => {
    const out = new Float32Array(dimensions);
    for (const w of text.toLowerCase().match(/[a-z0-9']+/g) ?? []) {
      const v = wordVector(w);
      for (let d = 0; d < dimensions; d++) out[d]! += v[d]!;
    }
    const norm = Math.hypot(...out) || 1;
    return out.map((x) => x / norm);
  };
  return { id: 'bag-of-words (test)', dimensions, embed: async (texts) => texts.map(embedOne) };
}
