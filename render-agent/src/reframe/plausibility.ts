import type { PixelBox, SubjectSample } from '@cutroom/shared/clips/subjects-v1';

/**
 * What a detection and a track must look like before they become a subject. A detector's
 * "faces" on a test pattern (the old detector boxed a 197x720 strip with score 1.0) or on a
 * wall's texture do not look like faces over time: a face box is about square, within a range of
 * sizes, its landmarks (where the detector gives them) sit where a face's do, and a person is
 * seen in several samples of a shot (continuity is linkDetections': a face continues a track only
 * within about one face width a sample).
 */
export const PLAUSIBLE = {
  /** Face height over width (a face box is about square; BlazeFace's always are). */
  aspect: [0.6, 1.8] as const,
  /** Face width as a share of the frame width: smaller is noise at our sampling, larger is not a face in frame. */
  width: [0.012, 0.7] as const,
  /** A track needs this many detections in its shot… */
  minDetections: 3,
  /** …and to be seen in this share of its shot's samples (when the shot has at least minDetections samples). */
  minPresence: 0.3,
  /** Eyes more tilted than this are not a face's (a head rolls less). */
  maxRollDegrees: 35,
} as const;

/** Why a detection is not a face, or null when it may be one. Landmarks: right eye, left eye, nose, mouth (BlazeFace's order), frame pixels. */
export function implausibleFace(box: PixelBox, frameWidth: number, landmarks?: readonly (readonly [number, number])[]): string | null {
  const aspect = box.h / box.w;
  if (aspect < PLAUSIBLE.aspect[0] || aspect > PLAUSIBLE.aspect[1]) return `box ${Math.round(box.w)}x${Math.round(box.h)} is not face-shaped`;
  const share = box.w / frameWidth;
  if (share < PLAUSIBLE.width[0]) return `box ${Math.round(box.w)} px wide is under ${PLAUSIBLE.width[0] * 100} % of the frame`;
  if (share > PLAUSIBLE.width[1]) return `box ${Math.round(box.w)} px wide is over ${PLAUSIBLE.width[1] * 100} % of the frame`;
  if (landmarks && landmarks.length >= 4) {
    const [rightEye, leftEye, nose, mouth] = landmarks as [
      readonly [number, number],
      readonly [number, number],
      readonly [number, number],
      readonly [number, number],
    ];
    const inside = (p: readonly [number, number]) =>
      p[0] >= box.x - box.w * 0.15 && p[0] <= box.x + box.w * 1.15 && p[1] >= box.y - box.h * 0.15 && p[1] <= box.y + box.h * 1.15;
    if (![rightEye, leftEye, nose, mouth].every(inside)) return 'landmarks outside the box';
    const eyeY = (rightEye[1] + leftEye[1]) / 2;
    const eyes = Math.hypot(leftEye[0] - rightEye[0], leftEye[1] - rightEye[1]) / box.w;
    if (eyes < 0.15 || eyes > 0.8) return `eyes ${eyes.toFixed(2)} face widths apart`;
    // The subject's right eye is on the picture's left; a head rolls less than MAX_ROLL_DEGREES.
    const roll = (Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]) * 180) / Math.PI;
    if (Math.abs(roll) > PLAUSIBLE.maxRollDegrees) return `eyes at ${Math.round(roll)}° (a head rolls under ${PLAUSIBLE.maxRollDegrees}°)`;
    if (!(mouth[1] > eyeY + box.h * 0.1)) return 'mouth not below the eyes';
    if (!(nose[1] > eyeY - box.h * 0.05 && nose[1] < mouth[1] + box.h * 0.05)) return 'nose not between the eyes and the mouth';
  }
  return null;
}

/**
 * Why a track is not a person, or null: too few detections, too little of its shot, or a median
 * score under the detector's bar for a confirmed face (FaceDetector.minTrackScore).
 * `shotSamples`: how many samples its shot had.
 */
export function implausibleTrack(boxes: readonly SubjectSample[], shotSamples: number, minMedianScore = 0): string | null {
  const needed = Math.min(PLAUSIBLE.minDetections, shotSamples);
  if (boxes.length < needed) return `seen in ${boxes.length} of ${shotSamples} samples`;
  if (shotSamples >= PLAUSIBLE.minDetections && boxes.length / shotSamples < PLAUSIBLE.minPresence) {
    return `seen in ${boxes.length} of ${shotSamples} samples (under ${PLAUSIBLE.minPresence * 100} %)`;
  }
  const median = medianScore(boxes);
  if (median < minMedianScore) return `median score ${median.toFixed(2)} under ${minMedianScore}`;
  return null;
}

/** The lower median of a track's detection scores (0 for none): its confidence in the subjects document. */
export function medianScore(boxes: readonly { score: number }[]): number {
  if (boxes.length === 0) return 0;
  const scores = boxes.map((b) => b.score).sort((a, b) => a - b);
  return scores[Math.floor((scores.length - 1) / 2)]!;
}
