import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { OutputFile, OutputRole } from './definition.ts';

/** The transcript files (SRT + words v2) a job writes (uploads always; cuts and edits re-timed), and the `transcript` role that serves them. */
export const TRANSCRIPT_FILES: Readonly<Record<'transcript_srt' | 'transcript_words', OutputFile>> = {
  transcript_srt: { contentType: 'application/x-subrip' },
  transcript_words: { contentType: 'application/json', schema: TranscriptV2 },
};
export const TRANSCRIPT_ROLE: OutputRole = { role: 'transcript', file: 'transcript_srt', meta: { words_key: 'transcript_words' } };
