import { TRANSCRIPT_OUTPUTS, type TranscriptOutputName } from '@cutroom/shared/contracts/transcript-outputs';
import { toSrt } from '@cutroom/shared/transcript/srt';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import type { OutputSources } from './output-writes.ts';

/** Output names of the transcript files (the contracts' TRANSCRIPT_OUTPUTS: transcribe's, and beside the understanding and cut outputs). */
export const TRANSCRIBE_OUTPUT_NAMES = Object.keys(TRANSCRIPT_OUTPUTS) as readonly TranscriptOutputName[];
export type TranscribeOutputName = TranscriptOutputName;

/** How the transcript files are written: both rendered in memory from the words. */
export const TRANSCRIPT_WRITES = { transcript_srt: 'memory', transcript_words: 'memory' } as const satisfies Record<TranscriptOutputName, 'memory'>;

/** Renders every output body; the others (txt, vtt, json) are derived on download from the words. */
export function buildTranscriptOutputs(t: TranscriptV2): Record<TranscribeOutputName, Buffer> {
  return {
    transcript_words: Buffer.from(JSON.stringify(t), 'utf8'),
    transcript_srt: Buffer.from(toSrt(t), 'utf8'),
  };
}

/** The transcript files as upload sources. */
export function transcriptSources(t: TranscriptV2): OutputSources<typeof TRANSCRIPT_WRITES> {
  const bodies = buildTranscriptOutputs(t);
  return { transcript_srt: () => ({ body: bodies.transcript_srt }), transcript_words: () => ({ body: bodies.transcript_words }) };
}

export function isTranscribeOutputName(name: string): name is TranscribeOutputName {
  return (TRANSCRIBE_OUTPUT_NAMES as readonly string[]).includes(name);
}
