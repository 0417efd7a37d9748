import { z } from 'zod';
import { defineContract } from './contract.ts';
import { MediaInfo, RenderedVideo } from './media-facts.ts';
import { TRANSCRIPT_OUTPUTS } from './transcript-outputs.ts';

/** One cut, in source seconds: first frame = the frame at `start`, last = the one before `end`. */
export const CutSegment = z.object({ start: z.number().nonnegative(), end: z.number().positive(), label: z.string().nullable() });
export type CutSegment = z.infer<typeof CutSegment>;

export const ExtractClipParams = z.object({
  segments: z.array(CutSegment).min(1),
  /**
   * Presigned GET of the parent's transcript v2 (words) when the caller asked for the re-timed
   * transcript (include_transcript), else null: then only `clip` is in `outputs`.
   */
  parent_words_url: z.url().nullable(),
});
export type ExtractClipParams = z.infer<typeof ExtractClipParams>;

/** What a cut-and-join reports: the parent's source as probed and the clip as rendered. */
export const CUT_COMPLETION = {
  /** The parent's source as probed. */
  media: MediaInfo,
  video: RenderedVideo,
};

/**
 * extract_clip: the parent's stored source (a presigned GET) cut into one mp4. Outputs `clip`
 * (video/mp4), and with a transcript `transcript_srt` and `transcript_words` re-timed to the cut
 * (optional: asked for only when the caller's include_transcript holds). One stage: analyzing.
 */
export const extractClipContract = defineContract({
  type: 'extract_clip',
  workKind: 'cut',
  params: ExtractClipParams,
  completion: CUT_COMPLETION,
  outputs: {
    clip: { contentType: 'video/mp4' },
    transcript_srt: { ...TRANSCRIPT_OUTPUTS.transcript_srt, isOptional: true },
    transcript_words: { ...TRANSCRIPT_OUTPUTS.transcript_words, isOptional: true },
  },
});
