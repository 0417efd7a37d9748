import { z } from 'zod';
import { defineContract } from './contract.ts';
import { MediaInfo } from './media-facts.ts';
import { TRANSCRIPT_OUTPUTS } from './transcript-outputs.ts';

export const TranscribeParams = z.object({
  /** ISO 639-1 code to force, or null to detect. */
  language: z.string().nullable(),
  model: z.string(),
});
export type TranscribeParams = z.infer<typeof TranscribeParams>;

/** What every transcribing type reports: the source as probed and the language Whisper settled on. */
export const TRANSCRIBED_COMPLETION = { media: MediaInfo, language: z.string() };

/**
 * transcribe: an upload → `transcript_srt` (SRT) and `transcript_words` (transcript v2 JSON).
 * Stages: extracting_audio (claimed) → transcribing (reported with the probe).
 */
export const transcribeContract = defineContract({
  type: 'transcribe',
  workKind: 'transcribe',
  params: TranscribeParams,
  completion: TRANSCRIBED_COMPLETION,
  outputs: TRANSCRIPT_OUTPUTS,
});
