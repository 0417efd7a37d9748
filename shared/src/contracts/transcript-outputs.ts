import { TranscriptV2 } from '../transcript/transcript-v2.ts';
import type { OutputSpec } from './contract.ts';

/** The transcript files (SRT + words v2) every transcribing type writes, and cuts re-timed: spread into those contracts' outputs. */
export const TRANSCRIPT_OUTPUTS = {
  transcript_srt: { contentType: 'application/x-subrip' },
  transcript_words: { contentType: 'application/json', schema: TranscriptV2 },
} as const satisfies Readonly<Record<string, OutputSpec>>;
export type TranscriptOutputName = keyof typeof TRANSCRIPT_OUTPUTS;
