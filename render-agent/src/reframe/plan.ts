import type { ExtractVerticalClipParams } from '@cutroom/proto';
import { aspectRatio } from '@cutroom/shared/clips/profiles';
import type { CropPoint, SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { inputFailure, PipelineError } from '../errors.ts';
import type { VideoStreamInfo } from '../executors/video-probe.ts';
import { centeredCropX, cropCenterForSubject, cropWindowSize, cropXForCenter, isVerticalSource, subjectShiftInSource } from './crop-geometry.ts';
import { followPath, steadyPath } from './crop-path.ts';
import { detectSubjects, type SubjectDetection } from './detect-subjects.ts';
import type { FaceDetector } from './face-detector.ts';
import { type FramedShot, frameShots } from './shot-targets.ts';
import { AS_LARGE } from './track.ts';

export interface PlanReframeOptions {
  ffmpegPath: string;
  /** Local path of the source video. */
  source: string;
  /** The cut in source seconds (the same as `params.start`/`params.end`). */
  start: number;
  end: number;
  video: VideoStreamInfo;
  params: ExtractVerticalClipParams;
  /** The output size (the profile's width, the aspect's height); `subject_x_offset` is in its pixels. */
  outWidth: number;
  outHeight: number;
  /** The attempt's work folder (planning writes nothing there today; cropFilter does). */
  workDir: string;
  signal: AbortSignal;
  /** 0..1; sampling and detection are nearly all of it. */
  onProgress?: (fraction: number) => void;
  /** @default loadFaceDetector() (face-detector.ts) */
  detector?: FaceDetector;
  /** detectSubjects' `adaptive` (false: detect on every sample; the evaluation compares both). @default true */
  adaptive?: boolean;
}

/**
 * Samples per second wanted before the MAX_SAMPLES cap, for every strategy that detects: `follow`
 * moves the crop between samples, and where several people are in the picture every strategy reads
 * their mouths between two samples to tell who speaks (speaking.ts: at 2 a second a 6-s shot had
 * too few quiet intervals to judge). While the faces keep still the detector reads one sample a
 * second whatever the rate (adaptive-sampling.ts), so the steady strategies pay little for it.
 */
const SAMPLES_PER_SECOND = 4;

/**
 * Decides the crop for one vertical clip and describes it as Subjects v1 (times clip-relative).
 * - `center`: the frame's center; no detection.
 * - `manual`: centered on `subject_box` (which frames the subject at `t_ref`) shifted by
 *   `subject_x_offset`, one static point; no detection.
 * - `auto`: faces are detected and linked into subjects; each shot gets one steady window on its
 *   dominant subject's median center (centered when the shot has no face).
 * - `subject_id`: like auto, on the named subject in the shots where it appears.
 * - `follow`: the named (else each shot's dominant) subject, followed smoothly (crop-path.ts).
 * `subject_x_offset` applies to every strategy that frames a subject. A source that is already
 * vertical is scaled, not cropped (`scaled_only`); auto/subject_id/follow still detect on it, so
 * the document lists its subjects and an unknown subject_id fails the same way.
 */
export async function planReframe(o: PlanReframeOptions): Promise<SubjectsV1> {
  const { width, height, fps } = o.video;
  const duration = o.end - o.start;
  if (!(duration > 0)) throw new PipelineError('internal', `reframing got an empty clip (${o.start}..${o.end} s)`);
  const aspect = aspectRatio(o.params.aspect);
  const isVertical = isVerticalSource(width, height, aspect);
  const size = isVertical ? { width, height } : cropWindowSize(width, height, aspect);
  const shift = subjectShiftInSource(o.params.subject_x_offset, size.width, o.outWidth);
  const strategy = o.params.subject;
  const doc = (path: CropPoint[], detection: SubjectDetection | null, shots: SubjectsV1['shots'], chosen: string | null, because: string): SubjectsV1 => ({
    version: 1,
    strategy,
    source: { width, height, fps },
    clip: { start: o.start, end: o.end },
    detector: detection ? { ...detection.detector, rejected_detections: detection.rejectedDetections } : null,
    shots,
    subjects: detection?.subjects ?? [],
    chosen_subject_id: chosen,
    chosen_because: isVertical ? `the source is already as narrow as ${o.params.aspect}: scaled, not cropped (${because})` : because,
    crop: { width: size.width, height: size.height, scaled_only: isVertical, path: isVertical ? [{ t: 0, x: 0, y: 0 }] : path },
  });

  if (strategy === 'center') {
    o.onProgress?.(1);
    return doc([{ t: 0, x: centeredCropX(size.width, width), y: 0 }], null, [], null, 'center: the middle of the frame, as asked');
  }
  if (strategy === 'manual') {
    const box = o.params.subject_box;
    if (!box) throw new PipelineError('internal', 'subject=manual reached the agent without a subject_box');
    o.onProgress?.(1);
    return doc(
      [{ t: 0, x: cropXForCenter(cropCenterForSubject(box.x + box.w / 2, shift), size.width, width), y: 0 }],
      null,
      [],
      null,
      'manual: centred on the subject_box given',
    );
  }

  const requested = o.params.subject_id;
  if (strategy === 'subject_id' && !requested) throw new PipelineError('internal', 'subject=subject_id reached the agent without a subject_id');
  const detection = await detectSubjects({
    ffmpegPath: o.ffmpegPath,
    source: o.source,
    start: o.start,
    end: o.end,
    video: o.video,
    preferredFps: SAMPLES_PER_SECOND,
    signal: o.signal,
    onProgress: (f) => o.onProgress?.(0.98 * f),
    ...(o.detector ? { detector: o.detector } : {}),
    ...(o.adaptive !== undefined && { adaptive: o.adaptive }),
  });
  if (requested && !detection.subjects.some((s) => s.id === requested)) {
    // The catalogue takes at most 100 ids; detection numbers them by dominance, so these are the main ones.
    const found = detection.subjects.map((s) => s.id).slice(0, 100);
    throw inputFailure({ code: 'subject_not_found', params: { found } }, { request: { subject_id: requested } });
  }
  const framed = frameShots(detection.shots, detection.subjects, requested, shift, { frameWidth: width, speaking: detection.speaking });
  const path =
    strategy === 'follow'
      ? followPath({
          shots: framed,
          fps,
          cropWidth: size.width,
          sourceWidth: width,
          // Reads are this far apart where the picture keeps still (adaptive sampling), closer where it moves.
          sampleInterval: detection.detector.still_interval_s ?? detection.detector.sample_interval_s,
        })
      : steadyPath(framed, size.width, width);
  const shots = framed.map((s) => ({
    start: round3(s.start),
    end: round3(s.end),
    subject_id: s.subjectId,
    rule: s.rule,
    ...(s.speaking && { speaking: s.speaking }),
  }));
  o.onProgress?.(1);
  return doc(path, detection, shots, requested ?? mostFramed(framed) ?? detection.subjects[0]?.id ?? null, chosenBecause(detection, requested, framed));
}

/** The subject framed for the longest time over the shots (the document's chosen subject), null for none. */
export function mostFramed(framed: readonly Pick<FramedShot, 'start' | 'end' | 'subjectId'>[]): string | null {
  const time = new Map<string, number>();
  for (const s of framed) if (s.subjectId) time.set(s.subjectId, (time.get(s.subjectId) ?? 0) + s.end - s.start);
  return [...time].reduce<[string, number] | null>((best, x) => (best === null || x[1] > best[1] ? x : best), null)?.[0] ?? null;
}

/** The rule that chose the subject, or why there is none (the document's `chosen_because`). */
export function chosenBecause(
  d: Pick<SubjectDetection, 'subjects' | 'rejectedDetections' | 'detector'>,
  requested: string | null | undefined,
  framed: readonly Pick<FramedShot, 'start' | 'end' | 'subjectId' | 'rule' | 'speaking'>[] = [],
): string {
  if (requested) return `${requested}: the subject_id asked for`;
  const chosen = mostFramed(framed);
  const rules = framed.filter((s) => s.subjectId === chosen);
  const speaking = rules.find((s) => s.rule === 'speaking')?.speaking;
  if (chosen && speaking) {
    const score = (id: string) => speaking.scores.find((x) => x.subject_id === id)?.score;
    const others = speaking.scores
      .filter((x) => x.subject_id !== chosen)
      .slice(0, 4)
      .map((x) => `${x.subject_id}'s ${x.score ?? 'none'}`);
    return `${chosen}: the face speaking (its mouth moves while there is voice and keeps still while there is none: score ${score(chosen)} against ${others.join(', ')})${rules.length < framed.length ? '; other shots by their own rule (shots[].rule)' : ''}`;
  }
  if (chosen && rules.some((s) => s.rule === 'central')) {
    return `${chosen}: the most central of faces about the same size (within ${Math.round((1 - AS_LARGE) * 100)} % of the largest's area)${framed.some((s) => s.speaking) ? '; no face was found speaking (shots[].speaking)' : ''}${rules.length < framed.length ? '; other shots by their own rule (shots[].rule)' : ''}`;
  }
  const main = d.subjects.find((s) => s.id === chosen) ?? d.subjects[0];
  if (main) {
    const others = d.subjects.length - 1;
    const noSpeaker = framed.some((s) => s.speaking) ? '; no face was found speaking (shots[].speaking)' : '';
    return `${main.id}: the clip's dominant face (largest presence × mean area; seen in ${Math.round(main.presence * 100)} % of the samples${others > 0 ? `; ${others} other subject${others > 1 ? 's' : ''}` : ''}), each shot framing its own dominant face${noSpeaker}`;
  }
  const rejected = d.rejectedDetections > 0 ? `; ${d.rejectedDetections} detection${d.rejectedDetections > 1 ? 's were' : ' was'} not face-like` : '';
  return `no face-like subject in ${d.detector.frames_sampled} samples read (a face must be seen in 3 samples and 30 % of its shot${rejected}): the window stays centred`;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;
