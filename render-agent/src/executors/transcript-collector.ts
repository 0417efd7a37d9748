import { TranscriptV2, type TranscriptSegmentV2 } from '@cutroom/shared/transcript/transcript-v2';
import { decodeFailureText } from '@cutroom/shared/failure-details';
import { PipelineError } from '../errors.ts';
import type { WhisperEvent } from './whisper-events.ts';

/** Maps the child's error codes onto the coordinator's failure classes. */
const CHILD_ERROR_CODES = {
  audio_invalid: 'media_invalid',
  model_unavailable: 'tool_failed',
  internal: 'tool_failed',
} as const;

/**
 * Accumulates the child's events into a TranscriptV2. `finish()` validates against the shared
 * schema: the same one the coordinator applies to the uploaded file.
 */
export function createTranscriptCollector() {
  let info: { language: string; duration: number } | null = null;
  const segments: TranscriptSegmentV2[] = [];
  let isDone = false;
  let failure: PipelineError | null = null;

  return {
    add(event: WhisperEvent): void {
      switch (event.type) {
        case 'info':
          info = { language: event.language, duration: event.duration };
          break;
        case 'segment': {
          const { type: _type, ...segment } = event;
          segments.push(segment);
          break;
        }
        case 'done':
          isDone = true;
          break;
        case 'error': {
          // The child's own words (faster-whisper's, the file name) are for the log; the caller reads the detail.
          const detail = event.code === 'audio_invalid' ? ({ code: 'undecodable', params: { step: 'transcription' } } as const) : undefined;
          const what = detail ? decodeFailureText('transcription') : 'transcription failed';
          failure = new PipelineError(CHILD_ERROR_CODES[event.code], `${what}: ${event.message}`, { detail });
          break;
        }
        case 'progress':
          break;
      }
    },
    /** The child's own error line, if it sent one. */
    failure(): PipelineError | null {
      return failure;
    },
    finish(): TranscriptV2 {
      if (failure) throw failure;
      if (!isDone || info === null) {
        throw new PipelineError('tool_failed', `transcription ended without ${info === null ? 'an info line' : 'a done line'}`);
      }
      const parsed = TranscriptV2.safeParse({ version: 2, language: info.language, duration: info.duration, segments });
      if (!parsed.success) throw new PipelineError('tool_failed', `Whisper produced an invalid transcript: ${parsed.error.message}`);
      return parsed.data;
    },
  };
}
