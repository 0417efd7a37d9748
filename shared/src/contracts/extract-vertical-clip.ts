import { z } from 'zod';
import { ClipAspect, VerticalProfile } from '../clips/profiles.ts';
import { PixelBox, SubjectStrategy, SubjectsV1 } from '../clips/subjects-v1.ts';
import { defineContract } from './contract.ts';
import { LoudnessResult, MediaInfo, RenderedVideo } from './media-facts.ts';

export const ExtractVerticalClipParams = z.object({
  start: z.number().nonnegative(),
  end: z.number().positive(),
  profile: VerticalProfile,
  /** The output's shape; absent from assignments of coordinators older than the option (9:16 then). */
  aspect: ClipAspect.default('9:16'),
  subject: SubjectStrategy,
  subject_id: z.string().max(64).nullable(),
  /** Source pixels; required for `manual`. */
  subject_box: PixelBox.nullable(),
  /** Source-time second at which subject_box frames the subject (README: t_ref); null = `start`. */
  t_ref: z.number().nonnegative().nullable(),
  /** Output pixels to move the subject right of the crop's center (README: subject_x_offset); 0 = centered. */
  subject_x_offset: z.number().nonnegative(),
});
export type ExtractVerticalClipParams = z.infer<typeof ExtractVerticalClipParams>;

/** extract_vertical_clip: outputs `clip` (video/mp4, 9:16 or the asked aspect) and `subjects` (subjects v1 JSON). One stage: analyzing. */
export const extractVerticalClipContract = defineContract({
  type: 'extract_vertical_clip',
  workKind: 'cut',
  params: ExtractVerticalClipParams,
  completion: {
    media: MediaInfo,
    video: RenderedVideo,
    /** Null when the source has no audio track (the clip is silent then). */
    loudness: LoudnessResult.nullable(),
  },
  outputs: {
    clip: { contentType: 'video/mp4' },
    subjects: { contentType: 'application/json', schema: SubjectsV1 },
  },
});
