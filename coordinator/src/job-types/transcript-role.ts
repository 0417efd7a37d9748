import type { TranscriptOutputName } from '@cutroom/shared/contracts/transcript-outputs';
import type { OutputRole } from './definition.ts';

/** The `transcript` role: the SRT, with the words v2 beside it (the transcript files of shared/src/contracts/transcript-outputs.ts). */
export const TRANSCRIPT_ROLE: OutputRole<TranscriptOutputName> = { role: 'transcript', file: 'transcript_srt', meta: { words_key: 'transcript_words' } };
