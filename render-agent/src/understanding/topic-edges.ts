import { cosine } from './embedder.ts';
import type { Segmentation } from './segment.ts';
import { meanDirection } from './vectors.ts';

/**
 * The topics find_clips cuts within: segmentation's (segment.ts), with each boundary moved onto
 * the sentence where the subject changes (`refineBoundaries`) and the boundaries that do not
 * change it dropped (`joinCoherentTopics`). Pure: embeddings in, a segmentation with its
 * `boundaries` and `topics` changed out (its curve and depths as they were).
 */

/**
 * Neighbouring topics whose centroids are at least this similar (cosine) are one subject:
 * segmentation's threshold is relative (mean + c·std of the depths), so it splits some long
 * discussions in two. MiniLM puts two halves of one subject around 0.6-0.8 and different subjects
 * under 0.3.
 */
export const SAME_SUBJECT = 0.55;

export interface EdgeOptions {
  /** How far (sentences) a boundary may move either way. @default 2 */
  radius?: number;
}

/**
 * TextTiling compares blocks of sentences and smooths the curve, so its deepest gap often lands a
 * sentence early or late: the last sentence of one topic then opens the next, and a clip cut at
 * that topic's start opens on the tail of the previous subject. Each boundary is re-placed within
 * `radius` sentences so that the sentences around it go to the topic whose centroid (of its
 * sentences away from the boundary) they are closer to; a tie leaves it where it was.
 */
export function refineBoundaries(embeddings: readonly Float32Array[], seg: Segmentation, o: EdgeOptions = {}): Segmentation {
  const radius = o.radius ?? 2;
  const n = embeddings.length;
  const starts = seg.topics.map((t) => t.first);
  for (let k = 1; k < starts.length; k++) {
    const b = starts[k]!;
    const leftFirst = starts[k - 1]!;
    const rightLast = (starts[k + 1] ?? n) - 1;
    // The new start g of the right topic lies in lo..hi, each side keeping a sentence at least:
    // sentences lo..hi-1 are the ones that may change sides.
    const lo = Math.max(leftFirst + 1, b - radius);
    const hi = Math.min(rightLast, b + radius);
    // Each side's centroid from its sentences that cannot move (never empty: lo > leftFirst, hi <= rightLast).
    const cLeft = meanDirection(embeddings, leftFirst, lo);
    const cRight = meanDirection(embeddings, hi, rightLast + 1);
    // How much closer each movable sentence is to the left topic than to the right one.
    const leaning = Array.from({ length: hi - lo }, (_, j) => cosine(embeddings[lo + j]!, cLeft) - cosine(embeddings[lo + j]!, cRight));
    // Starting the right topic at g puts lo..g-1 on the left: gain = Σ leaning there − Σ leaning after.
    const gainAt = (g: number) => leaning.reduce((sum, x, j) => sum + (lo + j < g ? x : -x), 0);
    let best = b;
    for (let g = lo; g <= hi; g++) if (gainAt(g) > gainAt(best) + 1e-9) best = g;
    starts[k] = best;
  }
  const topics = starts.map((first, i) => ({ first, last: (starts[i + 1] ?? n) - 1 }));
  return { ...seg, topics, boundaries: starts.slice(1).map((sentence) => ({ sentence, depth: seg.depth[sentence] ?? 0 })) };
}

/**
 * Topics with the boundaries between neighbours on one subject (centroids at least `similarity`
 * alike, SAME_SUBJECT) dropped: a run of such neighbours becomes one topic, so a clip about that
 * subject may use all of it while a real change of subject stays a boundary no clip crosses.
 */
export function joinCoherentTopics(embeddings: readonly Float32Array[], seg: Segmentation, o: { similarity?: number } = {}): Segmentation {
  const similarity = o.similarity ?? SAME_SUBJECT;
  const centroids = seg.topics.map((t) => meanDirection(embeddings, t.first, t.last + 1));
  const kept = seg.boundaries.filter((_, k) => cosine(centroids[k]!, centroids[k + 1]!) < similarity);
  const starts = [0, ...kept.map((b) => b.sentence)];
  const topics = seg.topics.length === 0 ? [] : starts.map((first, i) => ({ first, last: (starts[i + 1] ?? embeddings.length) - 1 }));
  return { ...seg, topics, boundaries: kept };
}
