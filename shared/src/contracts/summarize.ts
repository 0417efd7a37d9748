import { SummaryV1 } from '../summary/summary-v1.ts';
import { defineContract } from './contract.ts';
import { TRANSCRIPT_OUTPUTS } from './transcript-outputs.ts';
import { TRANSCRIBED_COMPLETION, TranscribeParams } from './transcribe.ts';

/**
 * summarize: an upload → transcript (like transcribe) → a summary. Outputs `transcript_srt`,
 * `transcript_words` and `summary` (summary v1 JSON, `@cutroom/shared/summary/summary-v1`).
 * Stages: extracting_audio (claimed) → transcribing (reported with the probe) → analyzing (reported).
 */
export const summarizeContract = defineContract({
  type: 'summarize',
  workKind: 'understand',
  params: TranscribeParams,
  completion: TRANSCRIBED_COMPLETION,
  outputs: { ...TRANSCRIPT_OUTPUTS, summary: { contentType: 'application/json', schema: SummaryV1 } },
});
