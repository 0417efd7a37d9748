import type { DetectedFace } from './faces.ts';

/**
 * Who is speaking, from the picture and the sound: a mouth that moves while there is voice and keeps
 * still while there is none. Used where a shot holds several people (issue 27: choose the one
 * speaking where the picture and audio allow it, else the largest and most central).
 *
 * - The picture: at every sample, a small grey patch around each face's mouth (BlazeFace's mouth
 *   landmark) and one from the eyes to the nose; a mouth's *activity* between two samples is how
 *   much its patch changed, less how much the reference patch changed (a head that moves, the
 *   compression or the light change both; talking changes the mouth).
 * - The sound: the clip's loudness in the same intervals; an interval is *voiced* when it is well
 *   above the clip's quiet floor.
 * - A face's *speaking score* is its mean mouth activity over voiced intervals less its mean over
 *   unvoiced ones (a mouth that chews through the silences, or a face that keeps moving, scores
 *   low). The speaker is the face whose score clears SPEAKING.minScore and every other face's by
 *   SPEAKING.margin; otherwise no face is said to speak.
 */

export const SPEAKING = {
  /** Patch size (grey samples) around the mouth and the nose. */
  patch: { w: 16, h: 8 },
  /** The mouth patch spans this share of the face box's width and height, centred on the mouth landmark. */
  mouth: { w: 0.6, h: 0.35 },
  /** The reference patch (eyes to nose: it moves with the head, not with the jaw), centred between the eyes' midpoint and the nose. */
  reference: { w: 0.6, h: 0.2 },
  /** An interval is voiced when its loudness is this many dB over the clip's quiet floor (the 10th percentile of 50-ms frames)… */
  voicedOverFloorDb: 12,
  /** …and over this absolute level (dBFS): hiss under it is no voice. */
  voicedMinDb: -45,
  /** An interval between two samples is voiced when this share of its 50-ms frames is… */
  voicedShare: 0.5,
  /** …and quiet when at most this share is (between the two it is not counted). */
  quietShare: 0.2,
  /** A face needs this many voiced intervals where it was seen (and as many quiet ones) to be judged. */
  minIntervals: 3,
  /**
   * The speaker's score must reach this (patch units: mean absolute change of a normalized patch).
   * Set on the evaluation's tuning pair (scripts/eval/reframe-set.ts): the speaking astronaut 0.067
   * at 4 samples a second, the still faces beside her −0.006 and −0.004.
   */
  minScore: 0.03,
  /** …and be this many times any other face's score (and clear it by minScore). */
  margin: 2,
} as const;

/** Grey patch of `size` sampled bilinearly over `region` (frame pixels) of packed RGB, normalized to zero mean and unit spread. */
export function greyPatch(rgb: Uint8Array, width: number, height: number, region: { x: number; y: number; w: number; h: number }): Float32Array {
  const { w: pw, h: ph } = SPEAKING.patch;
  const out = new Float32Array(pw * ph);
  const grey = (x: number, y: number) => {
    const xi = Math.min(width - 1, Math.max(0, Math.round(x)));
    const yi = Math.min(height - 1, Math.max(0, Math.round(y)));
    const i = (yi * width + xi) * 3;
    return 0.299 * rgb[i]! + 0.587 * rgb[i + 1]! + 0.114 * rgb[i + 2]!;
  };
  for (let py = 0; py < ph; py++) {
    for (let px = 0; px < pw; px++) {
      // The mean of 2 x 2 points in the cell: a little smoothing against compression noise.
      let sum = 0;
      for (const [dx, dy] of [
        [0.25, 0.25],
        [0.75, 0.25],
        [0.25, 0.75],
        [0.75, 0.75],
      ] as const) {
        sum += grey(region.x + ((px + dx) * region.w) / pw, region.y + ((py + dy) * region.h) / ph);
      }
      out[py * pw + px] = sum / 4;
    }
  }
  let mean = 0;
  for (const v of out) mean += v;
  mean /= out.length;
  let spread = 0;
  for (const v of out) spread += (v - mean) ** 2;
  // The floor keeps a flat patch (a shaved chin in the dark) from turning noise into change.
  spread = Math.max(Math.sqrt(spread / out.length), 8);
  for (let i = 0; i < out.length; i++) out[i] = (out[i]! - mean) / spread;
  return out;
}

/** Mean absolute difference of two patches. */
export function patchChange(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** A face's mouth patch and its reference patch (eyes to nose) in one sample. */
export interface MouthLook {
  mouth: Float32Array;
  reference: Float32Array;
}

/** The look of a face in one sample, or null without landmarks (BlazeFace: right eye, left eye, nose, mouth, right ear, left ear). */
export function mouthLook(rgb: Uint8Array, width: number, height: number, face: DetectedFace): MouthLook | null {
  const [right, left, nose, mouth] = face.landmarks ?? [];
  if (!right || !left || !nose || !mouth) return null;
  const mw = SPEAKING.mouth.w * face.w;
  const mh = SPEAKING.mouth.h * face.h;
  const rw = SPEAKING.reference.w * face.w;
  const rh = SPEAKING.reference.h * face.h;
  const rx = ((right[0] + left[0]) / 2 + nose[0]) / 2;
  const ry = ((right[1] + left[1]) / 2 + nose[1]) / 2;
  return {
    mouth: greyPatch(rgb, width, height, { x: mouth[0] - mw / 2, y: mouth[1] - mh / 2, w: mw, h: mh }),
    reference: greyPatch(rgb, width, height, { x: rx - rw / 2, y: ry - rh / 2, w: rw, h: rh }),
  };
}

/** The mouth's activity between two looks of the same face: its change less the reference's (never below 0). */
export function mouthActivity(before: MouthLook, after: MouthLook): number {
  return Math.max(0, patchChange(before.mouth, after.mouth) - patchChange(before.reference, after.reference));
}

/** Loudness (dBFS) of mono 16-bit samples at `rate` over [from, to) seconds; −120 for silence or nothing. */
export function loudnessDb(samples: Int16Array, rate: number, from: number, to: number): number {
  const a = Math.max(0, Math.floor(from * rate));
  const b = Math.min(samples.length, Math.ceil(to * rate));
  if (b <= a) return -120;
  let sum = 0;
  for (let i = a; i < b; i++) sum += samples[i]! * samples[i]!;
  const rms = Math.sqrt(sum / (b - a)) / 32768;
  return rms > 1e-6 ? 20 * Math.log10(rms) : -120;
}

/**
 * The share of an interval's 50-ms frames that are voiced (over `thresholdDb`): an interval is
 * judged voiced from SPEAKING.voicedShare up, quiet up to SPEAKING.quietShare, and not at all
 * between (a phrase starting or ending inside it).
 */
export function voicedShare(samples: Int16Array, rate: number, from: number, to: number, thresholdDb: number): number {
  const frames = Math.max(1, Math.round((to - from) / 0.05));
  const step = (to - from) / frames;
  let voiced = 0;
  for (let k = 0; k < frames; k++) if (loudnessDb(samples, rate, from + k * step, from + (k + 1) * step) > thresholdDb) voiced++;
  return voiced / frames;
}

/** The level over which an interval of this clip's audio is voiced: its quiet floor (10th percentile of 50-ms frames) + voicedOverFloorDb, at least voicedMinDb. */
export function voicedThresholdDb(samples: Int16Array, rate: number): number {
  const frame = Math.max(1, Math.round(rate * 0.05));
  const levels: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += frame) levels.push(loudnessDb(samples, rate, i / rate, (i + frame) / rate));
  levels.sort((x, y) => x - y);
  const floor = levels.length ? levels[Math.floor(levels.length * 0.1)]! : -120;
  return Math.max(floor + SPEAKING.voicedOverFloorDb, SPEAKING.voicedMinDb);
}

/** One face's mouth activity in one interval between two samples, and whether the interval was voiced. */
export interface ActivityInterval {
  activity: number;
  voiced: boolean;
}

export interface SpeakingScore {
  /** Mean activity over voiced intervals less the mean over unvoiced ones; null when there were too few of either. */
  score: number | null;
  voiced: number;
  unvoiced: number;
}

/** A face's speaking score from its intervals (see the module comment). */
export function speakingScore(intervals: readonly ActivityInterval[]): SpeakingScore {
  const voiced = intervals.filter((i) => i.voiced).map((i) => i.activity);
  const quiet = intervals.filter((i) => !i.voiced).map((i) => i.activity);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const score = voiced.length >= SPEAKING.minIntervals && quiet.length >= SPEAKING.minIntervals ? mean(voiced) - mean(quiet) : null;
  return { score, voiced: voiced.length, unvoiced: quiet.length };
}

/** The speaking face among several (their scores by id), or null when none clearly speaks. */
export function speakerOf(scores: ReadonlyMap<string, SpeakingScore>): string | null {
  const ranked = [...scores.entries()].filter(([, s]) => s.score !== null).sort((a, b) => b[1].score! - a[1].score!);
  const [best, next] = ranked;
  if (!best || best[1].score! < SPEAKING.minScore) return null;
  // Every face in the shot must have been judged: one that could not be is not known to be quiet.
  if (ranked.length < scores.size) return null;
  const second = next ? Math.max(0, next[1].score!) : 0;
  return best[1].score! >= SPEAKING.margin * second && best[1].score! - second >= SPEAKING.minScore ? best[0] : null;
}
