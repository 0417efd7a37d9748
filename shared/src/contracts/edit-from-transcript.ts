import { z } from 'zod';
import { defineContract } from './contract.ts';
import { CUT_COMPLETION, ExtractClipParams } from './extract-clip.ts';
import { TRANSCRIPT_OUTPUTS } from './transcript-outputs.ts';

/**
 * edit_from_transcript: the cut list the coordinator built from the caller's edit (up to 300
 * segments, in the edited order), rendered exactly as extract_clip renders its segments. Outputs
 * `clip` (video/mp4), `transcript_srt` and `transcript_words` re-timed to the edit
 * (`parent_words_url` is always set). One stage: analyzing.
 */
export const editFromTranscriptContract = defineContract({
  type: 'edit_from_transcript',
  workKind: 'cut',
  params: ExtractClipParams.extend({ parent_words_url: z.url() }),
  completion: CUT_COMPLETION,
  outputs: { clip: { contentType: 'video/mp4' }, ...TRANSCRIPT_OUTPUTS },
});
