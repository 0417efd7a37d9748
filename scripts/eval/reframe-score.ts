import type { SubjectsV1 } from '../../shared/src/clips/subjects-v1.ts';
import type { Box } from './reframe-set.ts';

/**
 * Scores of one planned crop against the truth of a composed shot (pure; never the detector's
 * own view): the share of frames with the whole face inside the crop window, the largest move of
 * the window from one frame to the next (share of its width), and, for controls, how many
 * subjects were reported and how far the window moved.
 */

/** The crop window's left edge at clip time `t` (the path lists the points where it changes). */
export function cropXAt(doc: Pick<SubjectsV1, 'crop'>, t: number): number {
  let x = doc.crop.path[0]?.x ?? 0;
  for (const p of doc.crop.path) {
    if (p.t > t + 1e-9) break;
    x = p.x;
  }
  return x;
}

export interface PersonScore {
  /** Share of frames with the face wholly inside the crop window. */
  inside: number;
  /** Largest frame-to-frame move of the window, share of its width. */
  largestMove: number;
  /** Mean distance of the face's centre from the window's centre, share of the window's width (0: always centred). */
  offCentre: number;
  subjects: number;
  /** Whether the face stays within one crop width for the whole shot (auto is judged only then). */
  withinOneCrop: boolean;
}

export function scorePerson(doc: SubjectsV1, faceAt: (t: number) => Box, seconds: number, fps: number): PersonScore {
  const frames = Math.round(seconds * fps);
  const width = doc.crop.width;
  let inside = 0;
  let largestMove = 0;
  let offCentre = 0;
  let prev: number | null = null;
  let minX = Number.POSITIVE_INFINITY;
  let maxRight = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < frames; i++) {
    const t = i / fps;
    const x = cropXAt(doc, t);
    const f = faceAt(t);
    minX = Math.min(minX, f.x);
    maxRight = Math.max(maxRight, f.x + f.w);
    if (f.x >= x - 0.5 && f.x + f.w <= x + width + 0.5) inside++;
    offCentre += Math.abs(f.x + f.w / 2 - (x + width / 2)) / width;
    if (prev !== null) largestMove = Math.max(largestMove, Math.abs(x - prev) / width);
    prev = x;
  }
  return { inside: inside / frames, largestMove, offCentre: offCentre / frames, subjects: doc.subjects.length, withinOneCrop: maxRight - minX <= width };
}

export interface ControlScore {
  subjects: number;
  /** How far the window's left edge moved over the shot, px. */
  motion: number;
}

export function scoreControl(doc: SubjectsV1): ControlScore {
  const xs = doc.crop.path.map((p) => p.x);
  return { subjects: doc.subjects.length, motion: xs.length > 0 ? Math.max(...xs) - Math.min(...xs) : 0 };
}
