import type { DetectedSubject } from '@cutroom/shared/clips/subjects-v1';
import { cropCenterForSubject } from './crop-geometry.ts';
import type { ShotTargets } from './crop-path.ts';
import type { ShotRange } from './shots.ts';
import { boxesInShot, dominantSubject } from './track.ts';

export interface FramedShot extends ShotTargets {
  /** The subject the crop frames in this shot, or null (no face: centered). */
  subjectId: string | null;
}

/**
 * Which subject each shot frames, and where that puts the window's center at each of its
 * detections: the requested subject where it appears in the shot, otherwise the shot's dominant
 * one (subjects never cross a cut, so a requested subject seen in one shot leaves the others to
 * the auto rule). `shift` (source px) puts the subject right of the output's center.
 */
export function frameShots(shots: readonly ShotRange[], subjects: readonly DetectedSubject[], requestedId: string | null, shift: number): FramedShot[] {
  const requested = subjects.find((s) => s.id === requestedId) ?? null;
  return shots.map((shot, i) => {
    const isLast = i === shots.length - 1;
    const inShot = requested && boxesInShot(requested, shot.start, shot.end, isLast).length > 0 ? requested : null;
    const subject = inShot ?? dominantSubject(subjects, shot.start, shot.end, isLast);
    const targets = subject ? boxesInShot(subject, shot.start, shot.end, isLast).map((b) => ({ t: b.t, x: cropCenterForSubject(b.x + b.w / 2, shift) })) : [];
    return { start: shot.start, end: shot.end, subjectId: subject?.id ?? null, targets };
  });
}
