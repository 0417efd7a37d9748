import { z } from 'zod';
import { ClipTarget } from '../clips/clip-targets.ts';
import { ClipsV1 } from '../clips/clips-v1.ts';
import { defineContract } from './contract.ts';
import { TRANSCRIPT_OUTPUTS } from './transcript-outputs.ts';
import { TRANSCRIBED_COMPLETION, TranscribeParams } from './transcribe.ts';

export const FindClipsParams = TranscribeParams.extend({
  /** 1-500 characters: query mode (the moments that match it); null: the best moments. */
  query: z.string().min(1).max(500).nullable(),
  /**
   * What the candidates are sized for (`@cutroom/shared/clips/clip-targets`); absent: the default
   * (2-5 minutes, or the topics' own lengths when none is that long). Optional on the wire, so an
   * agent that predates it strips it and an assignment without it means what it always meant.
   */
  target: ClipTarget.optional(),
});
export type FindClipsParams = z.infer<typeof FindClipsParams>;

/**
 * find_clips: an upload → transcript (like transcribe) → clip candidates. Outputs
 * `transcript_srt`, `transcript_words` and `clips` (clips v1 JSON, `@cutroom/shared/clips/clips-v1`).
 * Stages: extracting_audio (claimed) → transcribing (reported with the probe) → analyzing (reported).
 */
export const findClipsContract = defineContract({
  type: 'find_clips',
  workKind: 'understand',
  params: FindClipsParams,
  completion: {
    ...TRANSCRIBED_COMPLETION,
    /** How many candidates the clips document holds (it may be 0, with a note saying why). */
    candidates: z.number().int().nonnegative(),
  },
  outputs: { ...TRANSCRIPT_OUTPUTS, clips: { contentType: 'application/json', schema: ClipsV1 } },
});
