import type { DetectedSubject, PixelBox, SubjectSample } from '@cutroom/shared/clips/subjects-v1';
import { implausibleTrack, medianScore } from './plausibility.ts';

/** The faces found in one sampled frame, in source pixels, at clip time `t`. */
export interface FrameFaces {
  t: number;
  faces: Array<PixelBox & { score: number }>;
}

/**
 * How detections become subjects. Identities are geometric: a face continues a subject when it
 * overlaps or sits near that subject's last box, at a similar size, in the same shot. Nothing
 * recognizes a person, so the same person after a cut (or after `maxGapSeconds` out of view) is a
 * new subject.
 */
export interface LinkOptions {
  /** Clip times of shot changes; no subject crosses one. */
  cuts: readonly number[];
  /** A subject unseen for longer than this ends. @default 2 */
  maxGapSeconds?: number;
  /** Center distance, in widths of the larger box, within which a face may continue a subject. @default 1 */
  maxCenterDistance?: number;
  /** Largest size ratio (either way) between a face and the subject's last box. @default 2 */
  maxSizeRatio?: number;
  /** A track's median score must reach this (the detector's FaceDetector.minTrackScore). @default 0 */
  minTrackScore?: number;
}

/** Intersection over union of two boxes (0 when they do not overlap). */
export function iou(a: PixelBox, b: PixelBox): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

/** Index of the shot that holds `t` given sorted cut times. */
export function shotIndexAt(t: number, cuts: readonly number[]): number {
  let i = 0;
  while (i < cuts.length && t >= cuts[i]!) i++;
  return i;
}

/**
 * Links per-frame detections into tracks: in each frame, every (open track, face) pair that may
 * match gets a score (IoU + closeness) and pairs are taken best first, one face per track; faces
 * left over open new tracks. A one-detection track in a shot with at least 3 sampled frames is
 * dropped as a likely false positive.
 */
export function linkDetections(frames: readonly FrameFaces[], o: LinkOptions): SubjectSample[][] {
  const maxGap = o.maxGapSeconds ?? 2;
  const maxDist = o.maxCenterDistance ?? 1;
  const maxRatio = o.maxSizeRatio ?? 2;
  const tracks: Array<{ shot: number; boxes: SubjectSample[] }> = [];
  const framesPerShot = new Map<number, number>();
  for (const frame of frames) {
    const shot = shotIndexAt(frame.t, o.cuts);
    framesPerShot.set(shot, (framesPerShot.get(shot) ?? 0) + 1);
    const open = tracks.filter((tr) => tr.shot === shot && frame.t - tr.boxes.at(-1)!.t <= maxGap);
    const pairs: Array<{ track: (typeof tracks)[number]; face: number; score: number }> = [];
    for (const track of open) {
      const last = track.boxes.at(-1)!;
      frame.faces.forEach((face, i) => {
        const size = Math.max(last.w, face.w);
        const ratio = Math.max(last.w / face.w, face.w / last.w);
        const dist = Math.hypot(last.x + last.w / 2 - (face.x + face.w / 2), last.y + last.h / 2 - (face.y + face.h / 2)) / size;
        const overlap = iou(last, face);
        if (ratio > maxRatio || (overlap === 0 && dist > maxDist)) return;
        pairs.push({ track, face: i, score: overlap + Math.max(0, 1 - dist / maxDist) });
      });
    }
    pairs.sort((a, b) => b.score - a.score);
    const usedTracks = new Set<unknown>();
    const usedFaces = new Set<number>();
    for (const p of pairs) {
      if (usedTracks.has(p.track) || usedFaces.has(p.face)) continue;
      usedTracks.add(p.track);
      usedFaces.add(p.face);
      p.track.boxes.push({ ...frame.faces[p.face]!, t: frame.t });
    }
    frame.faces.forEach((face, i) => {
      if (!usedFaces.has(i)) tracks.push({ shot, boxes: [{ ...face, t: frame.t }] });
    });
  }
  return tracks.filter((tr) => implausibleTrack(tr.boxes, framesPerShot.get(tr.shot) ?? 0, o.minTrackScore) === null).map((tr) => tr.boxes);
}

/**
 * Tracks → the document's subjects. Ids go by dominance: `s1` is the subject with the largest
 * presence × mean area (ties: the one seen first), so `s1` is the clip's main subject whatever
 * order people appear in.
 */
export function describeSubjects(tracks: readonly SubjectSample[][], framesSampled: number, frameArea: number): DetectedSubject[] {
  const described = tracks.map((boxes) => {
    const presence = framesSampled > 0 ? Math.min(1, boxes.length / framesSampled) : 0;
    const meanArea = Math.min(1, boxes.reduce((sum, b) => sum + b.w * b.h, 0) / boxes.length / frameArea);
    return { presence, mean_area: meanArea, boxes, first: boxes[0]!.t };
  });
  described.sort((a, b) => b.presence * b.mean_area - a.presence * a.mean_area || a.first - b.first);
  return described.map((d, i) => ({
    id: `s${i + 1}`,
    kind: 'face' as const,
    presence: round(d.presence, 4),
    mean_area: round(d.mean_area, 6),
    confidence: round(medianScore(d.boxes), 4),
    boxes: d.boxes,
  }));
}

const round = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits;

/** A subject's boxes inside [start, end) (clip seconds); `end` itself counts for the last shot. */
export function boxesInShot(subject: DetectedSubject, start: number, end: number, isLastShot: boolean): SubjectSample[] {
  return subject.boxes.filter((b) => b.t >= start && (b.t < end || (isLastShot && b.t <= end)));
}

/**
 * The shot's dominant subject: the largest presence × mean area within the shot, which (the
 * shot's sampled frames being common to all) is the largest summed box area. Null for no face.
 */
export function dominantSubject(subjects: readonly DetectedSubject[], start: number, end: number, isLastShot: boolean): DetectedSubject | null {
  let best: DetectedSubject | null = null;
  let bestArea = 0;
  for (const s of subjects) {
    const area = boxesInShot(s, start, end, isLastShot).reduce((sum, b) => sum + b.w * b.h, 0);
    if (area > bestArea) {
      best = s;
      bestArea = area;
    }
  }
  return best;
}

/** Faces whose summed area in a shot is at least this share of the largest's are "as large": the more central of them is framed. */
export const AS_LARGE = 0.8;

/**
 * The shot's main subject when no one is known to speak: the largest (summed box area over the
 * shot's samples, i.e. presence × size), and among faces about as large (AS_LARGE) the one nearest
 * the frame's centre on average. `rule` says which decided. Null for no face.
 */
export function mainSubject(
  subjects: readonly DetectedSubject[],
  start: number,
  end: number,
  isLastShot: boolean,
  frameWidth: number,
): { subject: DetectedSubject | null; rule: 'largest' | 'central' | 'no_face' } {
  const sized = subjects
    .map((s) => ({ s, boxes: boxesInShot(s, start, end, isLastShot) }))
    .filter((x) => x.boxes.length > 0)
    .map((x) => ({ ...x, area: x.boxes.reduce((sum, b) => sum + b.w * b.h, 0) }))
    .sort((a, b) => b.area - a.area);
  const top = sized[0];
  if (!top) return { subject: null, rule: 'no_face' };
  const rivals = sized.filter((x) => x.area >= AS_LARGE * top.area);
  if (rivals.length === 1) return { subject: top.s, rule: 'largest' };
  const offCentre = (boxes: readonly SubjectSample[]) => boxes.reduce((sum, b) => sum + Math.abs(b.x + b.w / 2 - frameWidth / 2), 0) / boxes.length;
  const central = rivals.reduce((best, x) => (offCentre(x.boxes) < offCentre(best.boxes) ? x : best));
  return { subject: central.s, rule: 'central' };
}
