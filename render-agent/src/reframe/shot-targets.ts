import type { DetectedSubject, ShotRule } from '@cutroom/shared/clips/subjects-v1';
import { cropCenterForSubject } from './crop-geometry.ts';
import type { ShotTargets } from './crop-path.ts';
import type { ShotRange } from './shots.ts';
import type { ShotSpeaking } from './speakers.ts';
import { boxesInShot, mainSubject } from './track.ts';

export interface FramedShot extends ShotTargets {
  /** The subject the crop frames in this shot, or null (no face: centered). */
  subjectId: string | null;
  /** What chose it (the document's shot `rule`). */
  rule: ShotRule;
  /** Who speaks, where the shot holds several subjects (speakers.ts). */
  speaking?: ShotSpeaking;
}

/**
 * Which subject each shot frames, and where that puts the window's center at each of its
 * detections, by the first rule that applies: the requested subject where it appears in the shot
 * (`subject_id`), else the one speaking (`speaking`: its mouth moves with the voice, speakers.ts),
 * else the largest (`largest`), the most central among faces about as large (`central`), none
 * (`no_face`: centered). Subjects never cross a cut, so the choice changes only at shot changes.
 * `shift` (source px) puts the subject right of the output's center.
 */
export function frameShots(
  shots: readonly ShotRange[],
  subjects: readonly DetectedSubject[],
  requestedId: string | null,
  shift: number,
  o: { frameWidth: number; speaking?: readonly (ShotSpeaking | undefined)[] },
): FramedShot[] {
  const requested = subjects.find((s) => s.id === requestedId) ?? null;
  return shots.map((shot, i) => {
    const isLast = i === shots.length - 1;
    const speaking = o.speaking?.[i];
    const speaker = speaking?.speaker ? (subjects.find((s) => s.id === speaking.speaker) ?? null) : null;
    const choice =
      requested && boxesInShot(requested, shot.start, shot.end, isLast).length > 0
        ? { subject: requested, rule: 'subject_id' as const }
        : speaker
          ? { subject: speaker, rule: 'speaking' as const }
          : mainSubject(subjects, shot.start, shot.end, isLast, o.frameWidth);
    const targets = choice.subject
      ? boxesInShot(choice.subject, shot.start, shot.end, isLast).map((b) => ({ t: b.t, x: cropCenterForSubject(b.x + b.w / 2, shift) }))
      : [];
    return { start: shot.start, end: shot.end, subjectId: choice.subject?.id ?? null, rule: choice.rule, targets, ...(speaking && { speaking }) };
  });
}
