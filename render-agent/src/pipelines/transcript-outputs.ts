import { toSrt } from '@cutroom/shared/transcript/srt';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';

/** Output names a transcribe attempt can produce (proto/PROTOCOL.md, "Outputs of a transcribe attempt"). */
export const TRANSCRIBE_OUTPUT_NAMES = ['transcript_words', 'transcript_srt'] as const;
export type TranscribeOutputName = (typeof TRANSCRIBE_OUTPUT_NAMES)[number];

/** Renders every output body; the others (txt, vtt, json) are derived on download from the words. */
export function buildTranscriptOutputs(t: TranscriptV2): Record<TranscribeOutputName, Buffer> {
  return {
    transcript_words: Buffer.from(JSON.stringify(t), 'utf8'),
    transcript_srt: Buffer.from(toSrt(t), 'utf8'),
  };
}

export function isTranscribeOutputName(name: string): name is TranscribeOutputName {
  return (TRANSCRIBE_OUTPUT_NAMES as readonly string[]).includes(name);
}
