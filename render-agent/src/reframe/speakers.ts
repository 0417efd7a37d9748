import type { DetectedSubject, PixelBox } from '@cutroom/shared/clips/subjects-v1';
import type { ShotRange } from './shots.ts';
import {
  type ActivityInterval,
  type MouthLook,
  mouthActivity,
  SPEAKING,
  type SpeakingScore,
  speakerOf,
  speakingScore,
  voicedShare,
  voicedThresholdDb,
} from './speaking.ts';
import { iou } from './track.ts';

/**
 * Who speaks in each shot of several people: the mouths looked at in every sample (speaking.ts)
 * tied to the subjects they belong to, paired with the clip's loudness over the same intervals.
 */

/** The faces of one sample as looked at: each one's box (source px) as its read found it, and its mouth and nose patches. */
export interface SampleLooks {
  /** Sample index and clip time. */
  index: number;
  t: number;
  /** The read the boxes come from (the latest at or before this sample) and its clip time. */
  readIndex: number;
  readT: number;
  faces: { box: PixelBox; look: MouthLook }[];
}

export interface ShotSpeaking {
  /** Each subject of the shot with its speaking score (null: too few voiced or quiet intervals where it was seen still). */
  scores: { subject_id: string; score: number | null; voiced_intervals: number; unvoiced_intervals: number }[];
  /** The one speaking, or null when none clearly does (or the clip has no sound). */
  speaker: string | null;
  /** Why none was found where it says so: `no_audio`. */
  reason?: 'no_audio';
}

/** A look is of the face where it is: the sample's own read (where it had one) found that face within a tenth of its width. */
function lookIsAligned(box: PixelBox, readsAt: ReadonlyMap<number, PixelBox[]>, index: number): boolean {
  const own = readsAt.get(index);
  if (!own) return true; // not read: the faces kept still since the read the box comes from
  const cx = box.x + box.w / 2;
  return own.some((b) => Math.abs(b.x + b.w / 2 - cx) <= 0.1 * box.w && Math.abs(b.w - box.w) <= 0.1 * box.w);
}

/**
 * The speaking subject of each shot that holds several subjects (index by shot; undefined for a
 * shot of one subject or none). `readsAt`: the boxes (source px) each read sample found, by sample
 * index; `audio`: the clip's mono samples at `rate` (null: no sound).
 */
export function speakersByShot(o: {
  shots: readonly ShotRange[];
  subjects: readonly DetectedSubject[];
  looks: readonly SampleLooks[];
  readsAt: ReadonlyMap<number, PixelBox[]>;
  audio: Int16Array | null;
  rate: number;
}): (ShotSpeaking | undefined)[] {
  const owner = new Map<string, string>();
  for (const s of o.subjects) for (const b of s.boxes) owner.set(`${b.t}|${b.x}|${b.y}`, s.id);
  const threshold = o.audio ? voicedThresholdDb(o.audio, o.rate) : 0;
  const byIndex = new Map(o.looks.map((l) => [l.index, l]));
  /** subject id → its intervals, with the clip time each ends at. */
  const intervals = new Map<string, (ActivityInterval & { t: number })[]>();
  for (const now of o.looks) {
    const before = byIndex.get(now.index - 1);
    if (!before || !o.audio) continue;
    const share = voicedShare(o.audio, o.rate, before.t, now.t, threshold);
    if (share > SPEAKING.quietShare && share < SPEAKING.voicedShare) continue; // a phrase starts or ends inside: neither
    const voiced = share >= SPEAKING.voicedShare;
    for (const face of now.faces) {
      const id = owner.get(`${now.readT}|${face.box.x}|${face.box.y}`);
      if (!id || !lookIsAligned(face.box, o.readsAt, now.index)) continue;
      // The same face a sample before: the same box when both come from one read, else the one it overlaps most.
      const prev = before.faces.reduce<{ f: (typeof before.faces)[number] | null; o: number }>(
        (best, f) => {
          const overlap = iou(f.box, face.box);
          return overlap > best.o ? { f, o: overlap } : best;
        },
        { f: null, o: 0.5 },
      ).f;
      if (!prev || owner.get(`${before.readT}|${prev.box.x}|${prev.box.y}`) !== id || !lookIsAligned(prev.box, o.readsAt, before.index)) continue;
      const list = intervals.get(id) ?? [];
      list.push({ activity: mouthActivity(prev.look, face.look), voiced, t: now.t });
      intervals.set(id, list);
    }
  }
  return o.shots.map((shot, i) => {
    const isLast = i === o.shots.length - 1;
    const inShot = (t: number) => t >= shot.start && (t < shot.end || (isLast && t <= shot.end));
    const present = o.subjects.filter((s) => s.boxes.some((b) => inShot(b.t)));
    if (present.length < 2) return undefined;
    const scores = new Map<string, SpeakingScore>(present.map((s) => [s.id, speakingScore((intervals.get(s.id) ?? []).filter((iv) => inShot(iv.t)))]));
    return {
      scores: [...scores].map(([id, s]) => ({
        subject_id: id,
        score: s.score === null ? null : Math.round(s.score * 1000) / 1000,
        voiced_intervals: s.voiced,
        unvoiced_intervals: s.unvoiced,
      })),
      speaker: o.audio ? speakerOf(scores) : null,
      ...(o.audio ? {} : { reason: 'no_audio' as const }),
    };
  });
}
