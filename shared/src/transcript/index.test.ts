import { describe, expect, it } from 'vitest';
import * as transcript from './index.ts';

describe('transcript index', () => {
  it('re-exports the public API', () => {
    for (const name of [
      'TranscriptV2',
      'TranscriptV1',
      'formatSrtTime',
      'formatVttTime',
      'normalizeCues',
      'toSrt',
      'parseSrt',
      'toVtt',
      'toTxt',
      'toJsonV1',
      'transcriptV2JsonSchema',
      'TRANSCRIPT_FORMATS',
      'isTranscriptFormat',
      'renderTranscript',
    ]) {
      expect(transcript, name).toHaveProperty(name);
    }
  });
});
