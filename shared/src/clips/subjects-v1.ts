import { z } from 'zod';

/** Reframing strategies (CreateJobRequest `subject`). Enum members are only ever added. */
export const SubjectStrategy = z.enum(['center', 'manual', 'auto', 'subject_id', 'follow']);
export type SubjectStrategy = z.infer<typeof SubjectStrategy>;

const seconds = z.number().nonnegative();
const px = z.number().nonnegative();

/** A box in source pixels (top-left x, y; width, height). */
export const PixelBox = z.object({ x: px, y: px, w: z.number().positive(), h: z.number().positive() });
export type PixelBox = z.infer<typeof PixelBox>;

/** One detection of a subject at clip time `t` (seconds from the clip's start). */
export const SubjectSample = PixelBox.extend({ t: seconds, score: z.number().min(0).max(1) });
export type SubjectSample = z.infer<typeof SubjectSample>;

/** A subject found by detection: one identity linked across sampled frames. */
export const DetectedSubject = z.object({
  /**
   * Stable within this document; pass it back as `subject_id` to cut again around this subject.
   * Numbered by dominance (presence × mean area): `s1` is the clip's main subject. Identities are
   * geometric (no face recognition): a subject never spans a shot change or a gap of more than 2 s,
   * so one person seen in two shots is two subjects.
   */
  id: z.string().min(1).max(64),
  kind: z.enum(['face']),
  /** Share of sampled frames (0..1) the subject appears in. */
  presence: z.number().min(0).max(1),
  /** Mean box area over its samples as a share of the frame (0..1). */
  mean_area: z.number().min(0).max(1),
  /**
   * The median score of its detections, on the detector's scale (0..1): a track is a subject only
   * when it reaches the detector's `min_confidence`. Absent in documents of older agents.
   */
  confidence: z.number().min(0).max(1).optional(),
  boxes: z.array(SubjectSample),
});
export type DetectedSubject = z.infer<typeof DetectedSubject>;

/** A shot: clip time range between two detected cuts (scene changes); `subject_id` is the subject its crop frames (null: none, centered). */
/**
 * What chose a shot's subject: `subject_id` (asked for), `speaking` (its mouth moves with the
 * voice where the shot holds several people), `largest` (the largest face: presence × size),
 * `central` (the most central of faces about as large), `no_face` (none: the window is centred).
 */
export const ShotRule = z.enum(['subject_id', 'speaking', 'largest', 'central', 'no_face']);
export type ShotRule = z.infer<typeof ShotRule>;

export const Shot = z.object({
  start: seconds,
  end: seconds,
  subject_id: z.string().nullable(),
  /** What chose `subject_id` (absent in documents of older agents). */
  rule: ShotRule.optional(),
  /**
   * Where the shot holds several subjects: each one's speaking score (mean mouth movement over the
   * voiced intervals less over the quiet ones; null when it was seen still in too few of either) and
   * the one found speaking, or null. `reason` `no_audio`: the clip has no sound to compare with.
   */
  speaking: z
    .object({
      scores: z.array(
        z.object({
          subject_id: z.string(),
          score: z.number().nullable(),
          voiced_intervals: z.number().int().nonnegative(),
          unvoiced_intervals: z.number().int().nonnegative(),
        }),
      ),
      speaker: z.string().nullable(),
      reason: z.enum(['no_audio']).optional(),
    })
    .optional(),
});

/**
 * The crop window's top-left in source pixels from clip time `t` on (until the next point); the
 * window size is `crop.width` x `crop.height`. auto/subject_id: one point per shot; follow: one
 * point per frame where the window moves; center/manual: one point.
 */
export const CropPoint = z.object({ t: seconds, x: px, y: px });
export type CropPoint = z.infer<typeof CropPoint>;

/**
 * Subjects v1: what reframing detected and the crop path it rendered. Written by every
 * extract_vertical_clip job (detection fields empty for `center` and `manual`); served as JSON
 * Schema at /.well-known/cutroom-subjects-v1.schema.json. Times are clip-relative seconds, boxes
 * are source pixels.
 */
export const SubjectsV1 = z.object({
  version: z.literal(1),
  strategy: SubjectStrategy,
  source: z.object({ width: z.number().int().positive(), height: z.number().int().positive(), fps: z.number().positive() }),
  /** The cut, in the parent's (source) time. */
  clip: z.object({ start: seconds, end: seconds }),
  /**
   * Null when no detector ran (`center`, `manual`). `model`: the weights file run (where it names
   * its source and sha256); `min_confidence`: the median score a track needs to be a subject;
   * `rejected_detections`: detections dropped as not face-like (box shape or size, landmarks)
   * before tracking. The three are absent in documents of older agents.
   */
  detector: z
    .object({
      name: z.string(),
      model: z.object({ source: z.string().max(300), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
      min_confidence: z.number().min(0).max(1).optional(),
      /** Seconds between samples where the picture moves (every sample is read there). */
      sample_interval_s: z.number().positive(),
      /**
       * Seconds between the samples read while the faces keep still (adaptive sampling: a sample a
       * second, the ones between read too when two reads differ); absent when every sample was read.
       */
      still_interval_s: z.number().positive().optional(),
      /** Samples the detector read. */
      frames_sampled: z.number().int().nonnegative(),
      /**
       * Of those, the samples read only near the faces of the reads around them (between two whole
       * reads of moving faces: a window a face instead of the whole frame and its tiles); absent
       * when none was.
       */
      near_reads: z.number().int().nonnegative().optional(),
      rejected_detections: z.number().int().nonnegative().optional(),
    })
    .nullable(),
  shots: z.array(Shot),
  subjects: z.array(DetectedSubject),
  /** The subject the crop follows (auto: the dominant one; subject_id: the requested one), or null. */
  chosen_subject_id: z.string().nullable(),
  /** Why the crop frames what it frames, in a sentence: the rule that chose the subject, or why there was none (absent in documents of older agents). */
  chosen_because: z.string().max(400).optional(),
  crop: z.object({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    /** True when the source was already vertical and was scaled, not cropped. */
    scaled_only: z.boolean(),
    path: z.array(CropPoint).min(1),
  }),
});
export type SubjectsV1 = z.infer<typeof SubjectsV1>;
